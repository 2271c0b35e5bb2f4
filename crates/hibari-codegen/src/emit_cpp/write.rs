//! Writing generated headers: only those whose text changed, so a build
//! system that compares timestamps rebuilds only what depends on them.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::CppOutput;

/// A generated file could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CppWriteError {
    #[error("cannot write {}: {source}; check that the output folder is writable", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

/// What [`CppOutput::write_to`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WriteSummary {
    /// Files created or rewritten.
    pub written: usize,
    /// Files that already held exactly this text, left untouched.
    pub unchanged: usize,
}

impl CppOutput {
    /// Writes every header under `dir` (creating folders), rewriting only
    /// those whose content differs.
    pub fn write_to(&self, dir: &Path) -> Result<WriteSummary, CppWriteError> {
        let mut summary = WriteSummary::default();
        for h in &self.headers {
            if write_if_changed(&dir.join(&h.path), &h.text)? {
                summary.written += 1;
            } else {
                summary.unchanged += 1;
            }
        }
        Ok(summary)
    }
}

/// Writes `text` to `path` unless it already holds exactly that; returns
/// whether it wrote. The new text goes to a sibling file first and is
/// renamed over the old one, so a reader never sees half a header.
pub fn write_if_changed(path: &Path, text: &str) -> Result<bool, CppWriteError> {
    let err = |source| CppWriteError::Io {
        path: path.to_path_buf(),
        source,
    };
    match fs::read(path) {
        Ok(old) if old == text.as_bytes() => return Ok(false),
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(err(e)),
    }
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(err)?;
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".tmp{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    fs::write(&tmp, text).map_err(err)?;
    fs::rename(&tmp, path).map_err(|e| {
        let _ = fs::remove_file(&tmp);
        err(e)
    })?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit_cpp::CppHeader;

    #[test]
    fn writing_twice_rewrites_nothing_the_second_time() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let mut out = CppOutput::default();
        out.headers.push(CppHeader {
            path: "pkg/msg/a.hpp".into(),
            text: "one\n".into(),
        });
        out.headers.push(CppHeader {
            path: "pkg/msg/b.hpp".into(),
            text: "two\n".into(),
        });
        let first = out.write_to(dir).unwrap();
        assert_eq!((first.written, first.unchanged), (2, 0));
        let mtime = |p: &str| fs::metadata(dir.join(p)).unwrap().modified().unwrap();
        let before = mtime("pkg/msg/a.hpp");
        out.headers[1].text = "three\n".into();
        let second = out.write_to(dir).unwrap();
        assert_eq!((second.written, second.unchanged), (1, 1));
        assert_eq!(mtime("pkg/msg/a.hpp"), before);
        assert_eq!(
            fs::read_to_string(dir.join("pkg/msg/b.hpp")).unwrap(),
            "three\n"
        );
    }
}
