// A process whose clock is off: preloaded with `node --import <this file>`, it moves Date.now by
// OCDB_TEST_CLOCK_SKEW_MS milliseconds, as a host whose clock is set wrong reads it (every clock read of the store,
// the writer and the debug adapter is Date.now). The kernel's clock (a file's change time) is not moved: that is
// the store's clock for a SQLite file.
const skew = Number(process.env.OCDB_TEST_CLOCK_SKEW_MS ?? 0);
const realNow = Date.now.bind(Date);
Date.now = () => realNow() + skew;
