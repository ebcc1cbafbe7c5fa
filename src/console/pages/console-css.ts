/**
 * The console's one stylesheet, served at /console.css (CSP allows styles from 'self' only). The
 * search forms (`.filters`: events, replay by query, recover since) lay their fields out in a
 * grid, as many to a row as fit, so at 1,280 × 800 their first results are in view.
 */
export const CONSOLE_CSS = `
body { font-family: system-ui, sans-serif; margin: 0; color: #1a1a1a; background: #fff; }
header { display: flex; flex-wrap: wrap; align-items: center; gap: 1rem; padding: .5rem 1rem; background: #1f3a5f; color: #fff; }
header a { color: #fff; }
header a[aria-current="page"] { font-weight: bold; text-decoration: underline; }
nav ul { display: flex; flex-wrap: wrap; gap: 1rem; list-style: none; margin: 0; padding: 0; }
.who { margin: 0 0 0 auto; }
main { padding: 1rem; }
table { border-collapse: collapse; margin: .5rem 0 1.5rem; }
th, td { border: 1px solid #999; padding: .25rem .5rem; text-align: left; vertical-align: top; }
th { background: #eef2f7; }
.banner { margin: 0; padding: .5rem 1rem; background: #fff4ce; color: #3d3000; }
.notice { padding: .5rem; background: #dff6dd; color: #0b3d0b; border: 1px solid #0b3d0b; }
.notice.failed { background: #fde7e9; color: #6e0811; border-color: #6e0811; }
.inline { display: inline; }
.reason, .files, code { overflow-wrap: anywhere; }
td.reason, td.wide { max-width: 32rem; }
.files { margin: 0; padding-left: 1.2rem; }
.badge { display: inline-block; padding: 0 .4rem; border: 1px solid #1f3a5f; border-radius: .6rem; color: #1f3a5f; font-size: .85em; }
.state-paused, .state-circuit-open, .state-failing, .state-rate-limited, .down { color: #8a1c00; font-weight: bold; }
pre { white-space: pre-wrap; word-break: break-all; background: #f4f4f4; padding: .5rem; border: 1px solid #ccc; }
button { cursor: pointer; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
label { display: block; margin: .5rem 0; }
.filters { display: grid; grid-template-columns: repeat(auto-fill, minmax(14rem, 1fr)); gap: .5rem 1rem; align-items: end; margin-bottom: 1rem; }
.filters p { margin: 0; }
.filters label { margin: 0 0 .2rem; }
.filters input:not([type="checkbox"]), .filters select { width: 100%; box-sizing: border-box; }
.filters .wide { grid-column: 1 / -1; }
.filters .check label { display: inline; margin-left: .3rem; }
`;
