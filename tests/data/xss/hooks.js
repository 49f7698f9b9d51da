// masthead tests/test_xss.py: alert, confirm, prompt and print report to the console instead.
(() => {
  const report = (kind, args) => {
    const first = args.length ? String(args[0]) : "";
    console.log("__XSS__ " + kind + "(" + first + ") @ " + location.href);
  };
  for (const name of ["alert", "confirm", "prompt", "print"]) {
    const hook = function (...args) { report(name, args); };
    try {
      Object.defineProperty(window, name, { value: hook, writable: false, configurable: false });
    } catch (e) {}
  }
})();
