//! ncatted's `-a ATT,VAR,MODE,TYPE,VALUE`: one attribute edit, parsed whole before any
//! is made (a bad one changes nothing).

use super::value::{parse_type, parse_values};
use super::EditError;
use crate::model::Values;

/// What an edit does with an attribute, by whether it is there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttMode {
    /// `a`: append the values (creates the attribute when missing).
    Append,
    /// `c`: create; nothing when the attribute is there.
    Create,
    /// `d`: delete (every attribute of the target when the name is empty).
    Delete,
    /// `m`: modify; nothing when the attribute is missing.
    Modify,
    /// `n`: append only when the attribute is there.
    NAppend,
    /// `o`: overwrite, or create.
    Overwrite,
    /// `p`: prepend (creates the attribute when missing).
    Prepend,
}

impl AttMode {
    fn parse(letter: &str) -> Option<AttMode> {
        Some(match letter {
            "a" => AttMode::Append,
            "c" => AttMode::Create,
            "d" => AttMode::Delete,
            "m" => AttMode::Modify,
            "n" => AttMode::NAppend,
            "o" => AttMode::Overwrite,
            "p" => AttMode::Prepend,
            _ => return None,
        })
    }
}

/// Where an edit goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AttTarget {
    /// An empty VAR: every variable, in every group.
    AllVars,
    /// `global` (any case): the root group's attributes.
    Global,
    /// A name: every variable so named in any group, else every group so named; with
    /// a leading `/`, the variable or group at that path.
    Named(String),
}

/// One attribute edit.
#[derive(Debug, Clone, PartialEq)]
pub struct AttEdit {
    /// The attribute's name (empty: every attribute, for a delete).
    pub att: String,
    /// Where.
    pub target: AttTarget,
    /// What.
    pub mode: AttMode,
    /// The values (none for a delete).
    pub values: Option<Values>,
    /// The edit as given, for messages and the history line.
    pub spec: String,
}

impl AttEdit {
    /// Parse ncatted's `ATT,VAR,MODE,TYPE,VALUE` (the value is everything after the
    /// fourth comma: text keeps its commas).
    ///
    /// # Errors
    /// [`EditError::Spec`] naming the edit and what is wrong with it.
    pub fn parse(spec: &str) -> Result<AttEdit, EditError> {
        let said = format!("attribute edit '{spec}'");
        let bad = |reason: String| EditError::Spec {
            spec: said.clone(),
            reason,
        };
        let mut parts = spec.splitn(5, ',');
        let att = super::nfc(parts.next().unwrap_or_default());
        let (Some(var), Some(mode)) = (parts.next(), parts.next()) else {
            return Err(bad(
                "an edit is ATT,VAR,MODE,TYPE,VALUE (MODE one of a c d m n o p)".into(),
            ));
        };
        let mode = AttMode::parse(mode.trim()).ok_or_else(|| {
            bad(format!(
                "'{mode}' is not a mode: a (append), c (create), d (delete), m (modify), n (append if there), o (overwrite), p (prepend)"
            ))
        })?;
        let target = match var {
            "" => AttTarget::AllVars,
            v if v.eq_ignore_ascii_case("global") => AttTarget::Global,
            v => AttTarget::Named(super::nfc(v)),
        };
        let (letters, text) = (parts.next(), parts.next());
        if att.is_empty() && mode != AttMode::Delete {
            return Err(bad(
                "an attribute name is needed but to delete every attribute".into(),
            ));
        }
        if !att.is_empty() {
            if let Some(why) = super::bad_name(&att) {
                return Err(bad(format!("'{att}' {why}")));
            }
        }
        let values = if mode == AttMode::Delete {
            None
        } else {
            let letters = letters.filter(|l| !l.trim().is_empty()).ok_or_else(|| {
                bad(
                    "a type is needed for every mode but d (f d l i s c b ub us u ui ll ull sng)"
                        .into(),
                )
            })?;
            let t = parse_type(letters.trim()).map_err(&bad)?;
            let Some(text) = text else {
                return Err(bad(
                    "a value is needed for every mode but d (it may be empty for char and sng)"
                        .into(),
                ));
            };
            Some(parse_values(t, text).map_err(bad)?)
        };
        if att == "_FillValue" && values.as_ref().is_some_and(|v| v.len() != 1) {
            return Err(bad("a _FillValue is one value".into()));
        }
        Ok(AttEdit {
            att,
            target,
            mode,
            values,
            spec: said,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_parse_as_ncatted_reads_them() {
        let e = AttEdit::parse("units,T,o,c,degrees C, or K").unwrap();
        assert_eq!(e.att, "units");
        assert_eq!(e.target, AttTarget::Named("T".into()));
        assert_eq!(e.mode, AttMode::Overwrite);
        assert_eq!(e.values, Some(Values::text("degrees C, or K")));
        let e = AttEdit::parse("title,GLOBAL,a,c,!").unwrap();
        assert_eq!(e.target, AttTarget::Global);
        let e = AttEdit::parse(",T,d,,").unwrap();
        assert_eq!(
            (e.att.as_str(), e.mode, e.values),
            ("", AttMode::Delete, None)
        );
        let e = AttEdit::parse("units,,d").unwrap();
        assert_eq!(e.target, AttTarget::AllVars);
        assert_eq!(
            AttEdit::parse("x,T,o,f,1,2").unwrap().values,
            Some(Values::Float(vec![1.0, 2.0]))
        );
    }

    #[test]
    fn bad_edits_say_what_is_wrong() {
        for (spec, says) in [
            ("units,T,q,c,x", "'q' is not a mode"),
            ("units,T,o,z,1", "'z' is not a type"),
            ("units,T,o,d,", "needs a value"),
            ("units,T,o,d", "a value is needed"),
            ("units,T,o,,x", "a type is needed"),
            ("units,T", "an edit is ATT,VAR,MODE,TYPE,VALUE"),
            (",T,o,c,x", "an attribute name is needed"),
            ("v,T,o,s,70000", "70000 does not fit a short"),
        ] {
            let e = AttEdit::parse(spec).unwrap_err().to_string();
            assert!(e.contains(says), "{spec}: {e}");
            assert!(e.contains(spec), "{spec}: {e}");
        }
    }
}
