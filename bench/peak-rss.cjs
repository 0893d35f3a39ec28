// Preloaded into a benchmarked process (node --require): reports its peak resident memory on exit.
const fs = require('fs');
process.on('exit', () => {
  const target = process.env.VES_LENS_RSS_FILE;
  if (target) fs.writeFileSync(target, String(process.resourceUsage().maxRSS * 1024));
});
