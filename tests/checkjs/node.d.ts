// The entry point bin/ imports (`../node.js`, which scripts/entries.mjs writes into pkg/), as
// pkg-template/bin/tsconfig.json's check sees it: the package's declared API. Through that
// config's rootDirs, `../node.js` from pkg-template/bin/ finds this declaration before pkg/'s
// generated JavaScript (whose lib/ copies would be checked again).
export * from "../../pkg/index.js";
