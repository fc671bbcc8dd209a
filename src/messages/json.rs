//! Reading JSON with errors that say where: `messages[3].content[1].text: expected a string, got null`.

use serde_json::{Map, Value};

use crate::Error;

/// A location in the caller's input, for error messages.
#[derive(Clone, Debug, PartialEq)]
pub struct Path(String);

impl Path {
    /// The top-level argument, e.g. `messages`.
    pub fn root(name: &str) -> Self {
        Path(name.to_owned())
    }

    /// `self[i]`
    pub fn index(&self, i: usize) -> Self {
        Path(format!("{}[{i}]", self.0))
    }

    /// `self.key`
    pub fn field(&self, key: &str) -> Self {
        Path(format!("{}.{key}", self.0))
    }

    /// An [`Error::InvalidMessage`] at this path.
    pub fn error(&self, reason: impl Into<String>) -> Error {
        Error::InvalidMessage {
            path: self.0.clone(),
            reason: reason.into(),
        }
    }

    /// "expected X, got Y" at this path.
    pub fn expected(&self, what: &str, got: &Value) -> Error {
        self.error(format!("expected {what}, got {}", kind(got)))
    }

    /// The path as written in messages.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// What a JSON value is, for error messages.
pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `value` as an object.
pub fn object<'a>(value: &'a Value, path: &Path) -> Result<&'a Map<String, Value>, Error> {
    value.as_object().ok_or_else(|| path.expected("an object", value))
}

/// A required string field.
pub fn string<'a>(obj: &'a Map<String, Value>, key: &str, path: &Path) -> Result<&'a str, Error> {
    match obj.get(key) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(path.field(key).expected("a string", other)),
        None => Err(path.field(key).error("missing (expected a string)")),
    }
}

/// An optional string field (absent or null is `None`).
pub fn opt_string<'a>(obj: &'a Map<String, Value>, key: &str, path: &Path) -> Result<Option<&'a str>, Error> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(path.field(key).expected("a string", other)),
    }
}

/// An optional array field (absent or null is empty).
pub fn opt_array<'a>(obj: &'a Map<String, Value>, key: &str, path: &Path) -> Result<&'a [Value], Error> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(a)) => Ok(a),
        Some(other) => Err(path.field(key).expected("an array", other)),
    }
}

/// A required non-empty id string.
pub fn id<'a>(obj: &'a Map<String, Value>, key: &str, path: &Path) -> Result<&'a str, Error> {
    let id = string(obj, key, path)?;
    if id.is_empty() {
        return Err(path.field(key).error("empty id"));
    }
    Ok(id)
}

/// JSON text of a value (tool arguments given as objects are counted as their JSON).
pub fn to_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
