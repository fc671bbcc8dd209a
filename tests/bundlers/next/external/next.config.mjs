// What the README asks of a Next.js app whose server components import ctxfold.
export default { serverExternalPackages: ["ctxfold"] };
