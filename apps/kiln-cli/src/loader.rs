//! The file-system module loader: relative and absolute specifiers name files,
//! resolved against the importing file (or the working directory for the entry
//! module); a module's key is its canonical path.

use std::path::{Path, PathBuf};

pub struct FileLoader;

impl kiln::ModuleLoader for FileLoader {
    fn resolve(&mut self, specifier: &str, referrer: &str) -> Result<String, String> {
        let relative = specifier.starts_with("./") || specifier.starts_with("../");
        let path = if Path::new(specifier).is_absolute() {
            PathBuf::from(specifier)
        } else if relative || referrer.is_empty() {
            let base = if referrer.is_empty() {
                std::env::current_dir().map_err(|e| e.to_string())?
            } else {
                Path::new(referrer)
                    .parent()
                    .map(Path::to_path_buf)
                    .unwrap_or_default()
            };
            base.join(specifier)
        } else {
            return Err("bare specifiers are not supported; use a relative path".into());
        };
        let canonical = path
            .canonicalize()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(canonical.display().to_string())
    }

    fn load(&mut self, key: &str) -> Result<String, String> {
        std::fs::read_to_string(key).map_err(|e| e.to_string())
    }
}
