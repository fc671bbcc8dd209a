// A server component: Next.js bundles these with the module's URL turned into a web path,
// so the package is left to Node (next.config.mjs), as the README says.
import { countTokens } from "ctxfold";

export const dynamic = "force-dynamic";

export default async function Page({ searchParams }) {
  const { text = "" } = await searchParams;
  return <p id="count">{countTokens(text, { encoding: "o200k_base" })}</p>;
}
