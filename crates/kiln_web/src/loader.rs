//! Module loaders: [`WebLoader`] adds the web platform and the generated entry module to a
//! host's loader; [`MemoryLoader`] serves modules from memory.

use crate::{ENTRY, MODULE, SOURCE};
use kiln::ModuleLoader;

/// A loader that serves [`MODULE`] and [`ENTRY`] itself and everything else through `inner`.
pub struct WebLoader<L> {
    handler: String,
    inner: L,
}

impl<L: ModuleLoader> WebLoader<L> {
    /// `handler` is the specifier of the handler module, resolved by `inner` as if imported
    /// from the entry module (give an absolute path to a file loader).
    pub fn new(handler: impl Into<String>, inner: L) -> Self {
        WebLoader {
            handler: handler.into(),
            inner,
        }
    }
}

impl<L: ModuleLoader> ModuleLoader for WebLoader<L> {
    fn resolve(&mut self, specifier: &str, referrer: &str) -> Result<String, String> {
        match specifier {
            MODULE | ENTRY => Ok(specifier.to_string()),
            _ => self.inner.resolve(specifier, referrer),
        }
    }

    fn load(&mut self, key: &str) -> Result<String, String> {
        match key {
            MODULE => Ok(SOURCE.to_string()),
            ENTRY => Ok(entry_source(&self.handler)),
            _ => self.inner.load(key),
        }
    }
}

/// The entry module: the web platform first (its globals exist when the handler module
/// evaluates), then the handler, whose shape `serve` checks.
fn entry_source(handler: &str) -> String {
    let specifier = js_string(handler);
    format!(
        "import {{ serve }} from \"{MODULE}\";\nimport * as handler from {specifier};\nserve(handler, {specifier});\n"
    )
}

/// `text` as a JavaScript string literal.
fn js_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 || c == '\u{2028}' || c == '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Modules held in memory, keyed by their specifier as written (no path resolution).
pub struct MemoryLoader {
    modules: Vec<(String, String)>,
}

impl MemoryLoader {
    pub fn new<K: Into<String>, S: Into<String>>(
        modules: impl IntoIterator<Item = (K, S)>,
    ) -> Self {
        MemoryLoader {
            modules: modules
                .into_iter()
                .map(|(k, s)| (k.into(), s.into()))
                .collect(),
        }
    }
}

impl ModuleLoader for MemoryLoader {
    fn resolve(&mut self, specifier: &str, _referrer: &str) -> Result<String, String> {
        if self.modules.iter().any(|(k, _)| k == specifier) {
            Ok(specifier.to_string())
        } else {
            Err("no such module".into())
        }
    }

    fn load(&mut self, key: &str) -> Result<String, String> {
        self.modules
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, s)| s.clone())
            .ok_or_else(|| "no such module".into())
    }
}

#[cfg(test)]
mod tests {
    use super::js_string;

    #[test]
    fn specifiers_are_quoted_as_javascript_strings() {
        assert_eq!(js_string("/srv/a b.js"), r#""/srv/a b.js""#);
        assert_eq!(js_string("a\"b\\c\n"), r#""a\"b\\c\u000a""#);
    }
}
