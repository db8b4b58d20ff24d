// rotjs_cellular.js - the rot.js peers of bench/run (docs/PERFORMANCE.md).
//
//   node bench/rotjs_cellular.js [-r REPS] CASE...
//
// Cases (each prints one tab-separated line, like bench/bench.c):
//   rot_gen_SIZE      one ROT.Map.Cellular create() (a generation) on a
//                     SIZE x SIZE map with the 4-5 rule (born 5-8, survive
//                     4-8 of 8 neighbours: cavegen's generations r1=5 r2=-1),
//                     after randomize(0.45).
//   rot_connect_SIZE  connect() (floor = 0) on a map made by randomize(0.45)
//                     and 4 generations, rebuilt before each timed run.
// rot-js comes from bench/node_modules (npm ci, version pinned in
// bench/package.json). The median of REPS runs is printed.
"use strict";

let ROT;
try {
    ROT = require("rot-js");
} catch (e) {
    for (const c of process.argv.slice(2).filter((a) => a.startsWith("rot_")))
        console.log(`${c}\tmissing\t0\t-\trot-js: ${e.code || e.message}`);
    process.exit(0);
}
const version = require("rot-js/package.json").version;

let args = process.argv.slice(2);
let reps = 5;
if (args[0] === "-r") {
    reps = parseInt(args[1], 10);
    args = args.slice(2);
}

function median(ts) {
    ts.sort((a, b) => a - b);
    const n = ts.length;
    return n % 2 ? ts[(n - 1) / 2] : (ts[n / 2 - 1] + ts[n / 2]) / 2;
}

function seconds(fn) {
    const t0 = process.hrtime.bigint();
    fn();
    return Number(process.hrtime.bigint() - t0) * 1e-9;
}

function cave(size, gens) {
    const map = new ROT.Map.Cellular(size, size, { born: [5, 6, 7, 8], survive: [4, 5, 6, 7, 8] });
    map.randomize(0.45);
    for (let i = 0; i < gens; i++) map.create();
    return map;
}

ROT.RNG.setSeed(1);
for (const c of args) {
    const m = /^(rot_gen|rot_connect)_(\d+)$/.exec(c);
    if (!m) {
        console.error(`rotjs_cellular.js: unknown case ${c}`);
        process.exit(2);
    }
    const size = parseInt(m[2], 10);
    const ts = [];
    if (m[1] === "rot_gen") {
        const map = cave(size, 0);
        for (let r = 0; r < reps; r++) ts.push(seconds(() => map.create()));
    } else {
        for (let r = 0; r < reps; r++) {
            const map = cave(size, 4);
            ts.push(seconds(() => map.connect(null, 0)));
        }
    }
    console.log(`${c}\t${median(ts).toFixed(9)}\t${size * size}\tcells\trot-js ${version}`);
}
