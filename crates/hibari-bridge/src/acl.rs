//! Access control by name, as rosbridge's `topics_glob`, `services_glob`
//! and `params_glob` do it (bridge.md §1.7, M2).
//!
//! A glob list, when set, lets through only the names that one of its
//! patterns matches; when unset, every name passes. Patterns follow
//! Python's `fnmatch.fnmatch` (what rosbridge uses), matched against the
//! whole name, case-sensitively:
//!
//! - `*` matches any run of characters, `/` included (`/robot/*` matches
//!   `/robot/arm/joint_states`);
//! - `?` matches one character;
//! - `[abc]`, `[a-z]` match one character of the set, `[!abc]` one not in
//!   it; a `]` right after `[` or `[!` is a member; a `[` with no closing
//!   `]` is an ordinary character;
//! - every other character matches itself (there is no escape character).
//!
//! rosbridge takes the lists as one string, `"[/a/*, '/b']"`:
//! [`parse_glob_list`] reads that form (and a bare `/a/*,/b`).
//!
//! Unlike rosbridge, a name is checked both as the client spelled it and
//! resolved (for the names clients send — absolute ones — the two are the
//! same), so a relative spelling cannot reach a name the globs keep out.

/// One element of a compiled pattern.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    /// This character.
    Char(char),
    /// `?`: any one character.
    Any,
    /// `*`: any run of characters.
    Star,
    /// `[…]`: one character in (or, negated, not in) these ranges.
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
}

impl Token {
    fn matches(&self, c: char) -> bool {
        match self {
            Token::Char(x) => *x == c,
            Token::Any => true,
            Token::Star => false,
            Token::Class { negated, ranges } => {
                ranges.iter().any(|(lo, hi)| (*lo..=*hi).contains(&c)) != *negated
            }
        }
    }
}

/// Compiles an fnmatch pattern (as Python's `fnmatch.translate` reads it).
fn compile(pattern: &str) -> Vec<Token> {
    let p: Vec<char> = pattern.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < p.len() {
        let c = p[i];
        i += 1;
        match c {
            '*' => {
                if out.last() != Some(&Token::Star) {
                    out.push(Token::Star);
                }
            }
            '?' => out.push(Token::Any),
            '[' => {
                let mut j = i;
                if j < p.len() && p[j] == '!' {
                    j += 1;
                }
                if j < p.len() && p[j] == ']' {
                    j += 1;
                }
                while j < p.len() && p[j] != ']' {
                    j += 1;
                }
                if j >= p.len() {
                    out.push(Token::Char('['));
                    continue;
                }
                let mut members = &p[i..j];
                i = j + 1;
                let negated = members.first() == Some(&'!');
                if negated {
                    members = &members[1..];
                }
                let mut ranges = Vec::new();
                let mut k = 0;
                while k < members.len() {
                    if k + 2 < members.len() && members[k + 1] == '-' {
                        // A reversed range (`z-a`) matches nothing, as in Python.
                        if members[k] <= members[k + 2] {
                            ranges.push((members[k], members[k + 2]));
                        }
                        k += 3;
                    } else {
                        ranges.push((members[k], members[k]));
                        k += 1;
                    }
                }
                out.push(Token::Class { negated, ranges });
            }
            c => out.push(Token::Char(c)),
        }
    }
    out
}

/// Whether `name` matches the fnmatch `pattern` as a whole.
///
/// Time O(len(name) × len(pattern)) at worst: a `*` is retried only from
/// the last one seen.
pub fn fnmatch(name: &str, pattern: &str) -> bool {
    matches(&compile(pattern), name)
}

/// Whether `name` matches the compiled pattern `tokens` as a whole.
fn matches(tokens: &[Token], name: &str) -> bool {
    let s: Vec<char> = name.chars().collect();
    let (mut si, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        match tokens.get(ti) {
            Some(Token::Star) => {
                star = Some((ti, si));
                ti += 1;
            }
            Some(t) if t.matches(s[si]) => {
                si += 1;
                ti += 1;
            }
            _ => match star {
                Some((st, ss)) => {
                    star = Some((st, ss + 1));
                    ti = st + 1;
                    si = ss + 1;
                }
                None => return false,
            },
        }
    }
    tokens[ti..].iter().all(|t| *t == Token::Star)
}

/// Reads rosbridge's form of a glob list: `"[/a/*, '/b']"` (brackets and
/// quotes optional), split at commas, blanks dropped. Only one outer pair
/// of brackets is removed, and only when both are there, so a pattern's
/// own class survives: `"[/cam[0-9]]"` is `/cam[0-9]`.
pub fn parse_glob_list(text: &str) -> Vec<String> {
    let text = text.trim();
    let inner = text
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .unwrap_or(text);
    inner
        .split(',')
        .map(|e| e.trim().trim_matches('\'').trim_matches('"').trim())
        .filter(|e| !e.is_empty())
        .map(str::to_owned)
        .collect()
}

/// A glob list compiled once, as the bridge's core keeps it.
#[derive(Debug, Clone)]
pub(crate) struct Globs {
    patterns: Vec<Vec<Token>>,
}

impl Globs {
    /// Compiles `patterns` (an empty list lets nothing through).
    pub fn new(patterns: &[String]) -> Globs {
        Globs {
            patterns: patterns.iter().map(|p| compile(p)).collect(),
        }
    }

    /// Whether one of the patterns matches `name`.
    pub fn matches(&self, name: &str) -> bool {
        self.patterns.iter().any(|p| matches(p, name))
    }
}

/// Whether `globs` (unset: everything) lets `name` through.
pub(crate) fn allows(globs: Option<&Globs>, name: &str) -> bool {
    globs.is_none_or(|g| g.matches(name))
}

/// Whether `globs` lets through a name both as given and resolved.
pub(crate) fn allows_both(globs: Option<&Globs>, given: &str, resolved: &str) -> bool {
    allows(globs, given) && (given == resolved || allows(globs, resolved))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_as_python_fnmatch() {
        // Cases checked against Python 3's fnmatch.fnmatch.
        let cases: &[(&str, &str, bool)] = &[
            ("/chatter", "/chatter", true),
            ("/chatter", "/chat", false),
            ("/robot/arm/joint_states", "/robot/*", true),
            ("/robot", "/robot/*", false),
            ("/robot/", "/robot/*", true),
            ("/a/b", "*", true),
            ("", "*", true),
            ("", "", true),
            ("/x", "", false),
            ("/cam1/image", "/cam?/image", true),
            ("/cam12/image", "/cam?/image", false),
            ("/cam1", "/cam[0-9]", true),
            ("/camx", "/cam[0-9]", false),
            ("/camx", "/cam[!0-9]", true),
            ("/cam]", "/cam[]]", true),
            ("/cam]", "/cam[!]]", false),
            ("/cam-", "/cam[a-]", true),
            ("/cam[", "/cam[", true),
            ("/a", "/[z-a]", false),
            ("/aXbXc", "*X*X*", true),
            ("/aXb", "*X*X*", false),
            ("/rosapi/topics", "/rosapi/*", true),
            ("/Chatter", "/chatter", false),
            ("/a.b", "/a?b", true),
            ("/héllo", "/h?llo", true),
        ];
        for (name, pattern, want) in cases {
            assert_eq!(fnmatch(name, pattern), *want, "{name} ~ {pattern}");
        }
    }

    #[test]
    fn many_stars_stay_fast() {
        let name = "a".repeat(2000);
        let pattern = format!("{}b", "*a".repeat(50));
        assert!(!fnmatch(&name, &pattern));
    }

    #[test]
    fn reads_rosbridge_lists() {
        assert_eq!(parse_glob_list("[/a/*, '/b']"), vec!["/a/*", "/b"]);
        assert_eq!(parse_glob_list("/a/*,/b"), vec!["/a/*", "/b"]);
        assert_eq!(parse_glob_list("[*]"), vec!["*"]);
        assert!(parse_glob_list("[]").is_empty());
        assert!(parse_glob_list("").is_empty());
        // One outer pair only: a pattern's own class is kept.
        assert_eq!(parse_glob_list("[/cam[0-9]]"), vec!["/cam[0-9]"]);
        assert_eq!(
            parse_glob_list("['/cam[0-9]', /img[ab]]"),
            vec!["/cam[0-9]", "/img[ab]"]
        );
        assert_eq!(parse_glob_list("/cam[0-9]"), vec!["/cam[0-9]"]);
        assert_eq!(parse_glob_list("[[!a]*]"), vec!["[!a]*"]);
    }

    #[test]
    fn compiled_lists_match_as_fnmatch() {
        let g = Globs::new(&parse_glob_list("[/cam[0-9], '/robot/*']"));
        assert!(g.matches("/cam7"));
        assert!(g.matches("/robot/arm/joint_states"));
        assert!(!g.matches("/cam[0-9"));
        assert!(!g.matches("/camx"));
    }

    #[test]
    fn unset_allows_all_and_empty_allows_none() {
        assert!(allows(None, "/x"));
        assert!(!allows(Some(&Globs::new(&[])), "/x"));
        let g = Globs::new(&["/ok/*".to_owned()]);
        assert!(allows_both(Some(&g), "/ok/a", "/ok/a"));
        assert!(!allows_both(Some(&g), "ok/a", "/ok/a"));
        assert!(!allows_both(Some(&g), "/ok/a", "/other"));
    }
}
