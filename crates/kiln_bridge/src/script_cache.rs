//! Agent scripts compiled once per thread: a host that starts the same small script again
//! and again (a tool loop, a benchmark, a retry) compiles it on the first start only, and
//! each later start loads the compiled code ([`Runtime::start_compiled`]). Compiling a
//! small script was about a sixth of an in-process start.
//!
//! The cache is keyed by what compilation reads: the source and the file name (whose
//! extension makes it TypeScript); no setting of a start changes how it compiles. It holds
//! at most [`MAX_ENTRIES`] scripts and [`MAX_SOURCE_BYTES`] of source, and forgets the
//! least recently started first. A source that does not compile is not kept: its start
//! goes through [`Runtime::start`], which reports the error as always.

use kiln::{CompiledScript, ErrorReport, Outcome, Runtime};
use std::cell::RefCell;
use std::hash::{Hash, Hasher};

/// Scripts kept per thread.
pub const MAX_ENTRIES: usize = 64;

/// Bytes of source kept per thread; a larger source is compiled at each start.
pub const MAX_SOURCE_BYTES: usize = 4 * 1024 * 1024;

struct Entry {
    /// [`key_hash`] of the source and file name
    hash: u64,
    filename: Box<str>,
    script: CompiledScript,
}

struct Cache {
    /// from least to most recently used
    entries: Vec<Entry>,
    source_bytes: usize,
    max_entries: usize,
    max_source_bytes: usize,
}

thread_local! {
    static CACHE: RefCell<Cache> = RefCell::new(Cache::new(MAX_ENTRIES, MAX_SOURCE_BYTES));
}

impl Cache {
    fn new(max_entries: usize, max_source_bytes: usize) -> Cache {
        Cache {
            entries: Vec::new(),
            source_bytes: 0,
            max_entries,
            max_source_bytes,
        }
    }

    /// The compiled `source`, now the most recently used; compiled by `compile` and kept
    /// if new. `None` when it does not compile or is too large to keep.
    fn get(
        &mut self,
        source: &str,
        filename: &str,
        compile: impl FnOnce() -> Result<CompiledScript, ErrorReport>,
    ) -> Option<CompiledScript> {
        let hash = key_hash(source, filename);
        // the latest entries are the likeliest: look from the end
        let found = self.entries.iter().rposition(|e| {
            e.hash == hash && e.script.source() == source && *e.filename == *filename
        });
        if let Some(at) = found {
            let entry = self.entries.remove(at);
            let script = entry.script.clone();
            self.entries.push(entry);
            return Some(script);
        }
        if source.len() > self.max_source_bytes {
            return None;
        }
        let script = compile().ok()?;
        while self.entries.len() >= self.max_entries
            || self.source_bytes + source.len() > self.max_source_bytes
        {
            let oldest = self.entries.remove(0);
            self.source_bytes -= oldest.script.source().len();
        }
        self.source_bytes += source.len();
        self.entries.push(Entry {
            hash,
            filename: filename.into(),
            script: script.clone(),
        });
        Some(script)
    }
}

/// A hash of a cache key, so that a look-up compares whole sources only where the hash
/// matches.
fn key_hash(source: &str, filename: &str) -> u64 {
    let mut hasher = rustc_hash::FxHasher::default();
    (source, filename).hash(&mut hasher);
    hasher.finish()
}

/// What `runtime.start(source, filename)` gives, starting the script this thread compiled
/// for an earlier start of the same source and name when it has it.
pub fn start(runtime: &mut Runtime, source: &str, filename: &str) -> Result<Outcome, ErrorReport> {
    // (the cache is not borrowed while the guest runs: a host function may start another
    // execution on this thread)
    let compiled = CACHE.with(|cache| {
        let compile = || runtime.compile_agent(source, filename);
        cache.borrow_mut().get(source, filename, compile)
    });
    match compiled {
        Some(script) => runtime.start_compiled(&script),
        None => runtime.start(source, filename),
    }
}

#[cfg(test)]
mod tests {
    use super::{CACHE, Cache, start};
    use kiln::{CompiledScript, HostValue, Outcome, Runtime};

    #[test]
    fn a_cached_start_gives_what_an_uncached_start_gives() {
        let cases = [
            ("const n: number = input * 2; n + 1", "agent.ts"),
            (
                "const xs = [input, 2]; return xs.map(x => x * 10)",
                "agent.js",
            ),
            ("function f() {\n  null.x;\n}\nf()", "trace.js"),
            ("let x = ;", "bad.js"),
            ("enum Color { Red }", "enum.ts"),
        ];
        let fresh = || {
            let mut rt = Runtime::new();
            rt.set_global("input", &HostValue::Number(4.0)).unwrap();
            rt
        };
        for (source, filename) in cases {
            let uncached = fresh().start(source, filename);
            // the first start compiles and keeps the script, the second loads it
            for _ in 0..2 {
                assert_eq!(start(&mut fresh(), source, filename), uncached, "{source}");
            }
        }
        assert_eq!(
            start(&mut fresh(), cases[0].0, cases[0].1),
            Ok(Outcome::Complete(HostValue::Number(9.0)))
        );
        let Err(trace) = start(&mut fresh(), cases[2].0, cases[2].1) else {
            panic!("a TypeError was expected");
        };
        assert!(trace.stack.contains("at f (trace.js:2:"), "{}", trace.stack);
        // what does not compile is not kept
        let kept: Vec<String> = CACHE.with(|c| {
            c.borrow()
                .entries
                .iter()
                .map(|e| e.script.source().to_string())
                .collect()
        });
        assert_eq!(kept, [cases[1].0, cases[0].0, cases[2].0]);
        // the same source under a name that makes it TypeScript is another script
        assert_eq!(
            start(&mut fresh(), "let s: string = 'ts'; s", "same.js")
                .unwrap_err()
                .kind,
            kiln::ErrorKind::Syntax
        );
        assert_eq!(
            start(&mut fresh(), "let s: string = 'ts'; s", "same.ts"),
            Ok(Outcome::Complete("ts".into()))
        );
    }

    #[test]
    fn the_cache_forgets_the_least_recently_started_beyond_its_bounds() {
        let mut cache = Cache::new(3, 20);
        let kept = |cache: &Cache| -> Vec<String> {
            cache
                .entries
                .iter()
                .map(|e| e.script.source().to_string())
                .collect()
        };
        fn get(cache: &mut Cache, source: &str, filename: &str) -> Option<CompiledScript> {
            cache.get(source, filename, || {
                CompiledScript::compile_agent(source, filename)
            })
        }
        for source in ["1", "2", "3", "1", "4"] {
            assert!(get(&mut cache, source, "n.js").is_some());
        }
        // "1" was started again: "2" was the least recently started
        assert_eq!(kept(&cache), ["3", "1", "4"]);
        // 19 bytes more than the 3 held: one is forgotten for the count, one for the bytes
        assert!(get(&mut cache, "'01234567890123456'", "s.js").is_some());
        assert_eq!(kept(&cache), ["4", "'01234567890123456'"]);
        assert_eq!(cache.source_bytes, 20);
        // a source larger than the whole budget is not kept, nor one that does not compile
        assert!(get(&mut cache, "'0123456789012345678'", "l.js").is_none());
        assert!(get(&mut cache, "let = ;", "bad.js").is_none());
        assert_eq!(kept(&cache), ["4", "'01234567890123456'"]);
        // what is kept is the script: a hit gives it back
        let script = get(&mut cache, "4", "n.js").unwrap();
        let mut rt = Runtime::new();
        assert_eq!(
            rt.start_compiled(&script),
            Ok(Outcome::Complete(HostValue::Number(4.0)))
        );
        assert_eq!(kept(&cache), ["'01234567890123456'", "4"]);
    }
}
