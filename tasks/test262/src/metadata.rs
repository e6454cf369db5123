//! Test metadata: the YAML frontmatter between `/*---` and `---*/`.
//!
//! Only the keys the runner needs are read (`includes`, `flags`, `features`,
//! `negative`), in both YAML list styles test262 uses (`[a, b]` and `- a`).

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Metadata {
    pub includes: Vec<String>,
    pub flags: Vec<String>,
    pub features: Vec<String>,
    /// `(phase, type)` of a negative test
    pub negative: Option<(String, String)>,
}

impl Metadata {
    pub fn has_flag(&self, flag: &str) -> bool {
        self.flags.iter().any(|f| f == flag)
    }
}

/// Parse the frontmatter of a test file's source.
pub fn parse(source: &str) -> Metadata {
    let mut meta = Metadata::default();
    let Some(start) = source.find("/*---") else {
        return meta;
    };
    let Some(len) = source[start..].find("---*/") else {
        return meta;
    };
    let yaml = &source[start + 5..start + len];
    let mut current: Option<&str> = None;
    let mut negative_phase = String::new();
    let mut negative_type = String::new();
    // Some tests use CR alone as their line terminator.
    for raw in yaml.split(['\n', '\r']) {
        let line = raw.trim_end();
        let trimmed = line.trim_start();
        let indented = line.len() != trimmed.len();
        if trimmed.is_empty() {
            continue;
        }
        if let Some(item) = trimmed.strip_prefix("- ") {
            if let Some(key) = current {
                push(&mut meta, key, item.trim());
            }
            continue;
        }
        if indented && current == Some("negative") {
            if let Some((k, v)) = trimmed.split_once(':') {
                match k.trim() {
                    "phase" => negative_phase = v.trim().to_string(),
                    "type" => negative_type = v.trim().to_string(),
                    _ => {}
                }
            }
            continue;
        }
        if indented {
            continue;
        }
        let Some((key, value)) = trimmed.split_once(':') else {
            continue;
        };
        let key = key.trim();
        let value = value.trim();
        current = match key {
            "includes" | "flags" | "features" | "negative" => Some(key),
            _ => None,
        };
        if let Some(list) = value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
            for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                push(&mut meta, key, item);
            }
        }
    }
    if !negative_phase.is_empty() {
        meta.negative = Some((negative_phase, negative_type));
    }
    meta
}

fn push(meta: &mut Metadata, key: &str, item: &str) {
    let item = item.trim_matches(|c| c == '"' || c == '\'').to_string();
    match key {
        "includes" => meta.includes.push(item),
        "flags" => meta.flags.push(item),
        "features" => meta.features.push(item),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_inline_and_block_lists() {
        let src = "/*---\nesid: x\nincludes: [compareArray.js, propertyHelper.js]\nflags: [onlyStrict]\nfeatures:\n  - Symbol\n  - class\nnegative:\n  phase: parse\n  type: SyntaxError\n---*/\n$DONOTEVALUATE();";
        let m = parse(src);
        assert_eq!(m.includes, vec!["compareArray.js", "propertyHelper.js"]);
        assert_eq!(m.flags, vec!["onlyStrict"]);
        assert_eq!(m.features, vec!["Symbol", "class"]);
        assert_eq!(m.negative, Some(("parse".into(), "SyntaxError".into())));
    }

    #[test]
    fn description_text_is_not_a_key() {
        let src = "/*---\ndescription: >\n  flags: [raw] appears in prose\ninfo: |\n  - not a list\n---*/";
        let m = parse(src);
        assert!(m.flags.is_empty());
        assert!(m.includes.is_empty());
    }
}
