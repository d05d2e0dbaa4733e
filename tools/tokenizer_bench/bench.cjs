// Single-core tokenisation throughput of tiktoken (the Rust BPE core compiled to WASM) with
// cl100k_base on English prose: the seeds and the README, cut into 4 KB documents.
const fs = require("fs");
const { get_encoding } = require("tiktoken");
const files = process.argv.slice(2);
let text = files.map((f) => fs.readFileSync(f, "utf8")).join("\n");
const docs = [];
for (let i = 0; i < text.length; i += 4096) docs.push(text.slice(i, i + 4096));
const enc = get_encoding("cl100k_base");
let bytes = 0, tokens = 0;
for (const d of docs.slice(0, 50)) enc.encode(d);  // warm up
const t0 = process.hrtime.bigint();
for (let rep = 0; rep < 20; ++rep)
  for (const d of docs) { tokens += enc.encode(d).length; bytes += Buffer.byteLength(d); }
const s = Number(process.hrtime.bigint() - t0) / 1e9;
console.log(JSON.stringify({ seconds: s, bytes, tokens, mb_per_s: bytes / s / 1e6, tokens_per_s: tokens / s, bytes_per_token: bytes / tokens }));
