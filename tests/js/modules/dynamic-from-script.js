// A classic script can import modules dynamically.
import('./_lib.mjs').then((ns) => print(typeof ns.increment)); // expect: function
