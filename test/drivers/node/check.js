// The reporting shared by the programs in this folder: one "ok <check>" or
// "not ok <check>: <why>" line per check, read by test/t/052_stacks.pl, and
// an exit status of 1 if any check failed.
'use strict';

let failed = false;

function check(name, cond, why) {
  console.log((cond ? 'ok ' : 'not ok ') + name + (cond ? '' : ': ' + why));
  if (!cond) failed = true;
}

// Runs the async main(), turning an exception into a failed check.
function run(main) {
  main().then(
    () => process.exit(failed ? 1 : 0),
    (e) => { console.log('not ok the program ran to its end: ' + (e && e.stack || e)); process.exit(1); });
}

// 2^53: above it a JavaScript number cannot hold every integer.
const SAFE = 2n ** 53n;

module.exports = { check, run, SAFE };
