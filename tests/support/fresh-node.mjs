// Runs an ES module source in a new Node process, as a small user program would: its
// `import ... from "ctxfold"` resolves through tests/node_modules. The program prints one
// JSON value on its last line of stdout; that value is returned.
import { execFile } from "node:child_process";
import { testsDir } from "./paths.mjs";

/**
 * @param {string} source ES module source; must end by printing JSON.stringify(result).
 * @returns {Promise<any>}
 */
export function runFresh(source) {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["--input-type=module", "--eval", source],
      { cwd: testsDir, timeout: 60_000 },
      (err, stdout, stderr) => {
        if (err) return reject(new Error(`child failed: ${err.message}\n${stderr}`));
        const last = stdout.trim().split("\n").at(-1);
        try {
          resolve(JSON.parse(last));
        } catch {
          reject(new Error(`child printed no JSON:\n${stdout}\n${stderr}`));
        }
      },
    );
  });
}

/** Source of a function that turns a thrown value into plain JSON, for child programs. */
export const describeError = `(e) => ({ threw: true, name: e?.name, code: e?.code, message: String(e?.message ?? e) })`;
