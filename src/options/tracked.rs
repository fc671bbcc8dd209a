//! A deserializer wrapper that knows where it is and what went wrong, as values.
//!
//! [`Tracked`] wraps any self-describing deserializer (serde_json's) and gives the types it
//! reads an error type of its own, [`Problem`]: serde's derived code then reports an unknown
//! key as `Problem::unknown_field(key, FIELDS)` with the known list as serde declares it, a
//! missing one by its name, a wrong type with the value's [`de::Unexpected`], and ctxfold's
//! checked numbers report a value out of range through [`out_of_range`]. Every problem
//! carries the [`Path`] of the value it is about, kept while reading (a key is on the path
//! from the moment it is read until its value has been read; an array index likewise). No
//! message text is ever read back: a serde_json upgrade that rewords its errors changes no
//! code and no path.
//!
//! How it works: each value is read with `deserialize_any` (JSON describes itself), through
//! a visitor wrapper that calls the caller's visitor with `Problem` as its error type. The
//! inner deserializer's own error type is serde_json's, so a `Problem` that must pass through
//! it is parked in a thread-local slot and picked up on the other side ([`carry`] and
//! [`back`]); an error serde_json makes itself (bad syntax) becomes [`What::Other`] at the
//! path where it was found.

use std::cell::RefCell;
use std::fmt;

mod parts;
pub use parts::field_names;
pub(crate) use parts::read_part;

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor,
};

/// One step of a path: an object's key or an array's index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    /// A key of an object.
    Key(String),
    /// An index in an array.
    Index(usize),
}

/// Where a value is, from the top of what was read: `[Key("guards"), Key("backoffTurns")]`.
/// Displayed `guards.backoffTurns`, `state.chunks[2].text` (only for messages).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Path(pub Vec<Segment>);

impl Path {
    /// The first key, if the path starts with one.
    pub fn first_key(&self) -> Option<&str> {
        match self.0.first() {
            Some(Segment::Key(k)) => Some(k),
            _ => None,
        }
    }

    /// `argument` (`options`) followed by this path: `options.toolPolicies.bash`.
    pub fn under(&self, argument: &str) -> String {
        match self.0.is_empty() {
            true => argument.to_owned(),
            false => format!("{argument}.{self}"),
        }
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        for (i, segment) in self.0.iter().enumerate() {
            match segment {
                Segment::Key(k) if i == 0 => f.write_str(k)?,
                Segment::Key(k) => write!(f, ".{k}")?,
                Segment::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

/// What was wrong with a value, as serde's derived code and ctxfold's checked types say it.
#[derive(Clone, Debug, PartialEq)]
pub enum What {
    /// A key the type does not have; `known` is the type's keys, as serde declares them.
    UnknownField {
        field: String,
        known: &'static [&'static str],
    },
    /// A required key that is absent.
    MissingField { field: &'static str },
    /// A key given twice.
    DuplicateField { field: &'static str },
    /// A value of the wrong type: `got` is what it was (`string "x"`, `null`), `expected`
    /// what the type reads (`a number`).
    InvalidType { got: String, expected: String },
    /// A value of the right type that the type refuses.
    InvalidValue { got: String, expected: String },
    /// An array or object of the wrong length.
    InvalidLength { len: usize, expected: String },
    /// A string that is none of an enum's variants.
    UnknownVariant {
        got: String,
        known: &'static [&'static str],
    },
    /// A value of the right type out of range (`reason`: `expected a number in (0, 1], got
    /// 1.5`), reported by [`out_of_range`].
    OutOfRange { reason: String },
    /// A name of a thing ctxfold knows a fixed set of (a message format, an encoding) that is
    /// none of them, reported by [`unknown_name`]: its own error code, not `INVALID_ARGUMENT`.
    UnknownName { kind: Named, name: String },
    /// Anything else: a type's own message, or serde_json's for text that is not JSON.
    Other { message: String },
}

/// What an [`What::UnknownName`] names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Named {
    /// A message format (`UNKNOWN_FORMAT`).
    Format,
    /// An encoding (`UNKNOWN_ENCODING`).
    Encoding,
}

/// A problem found while reading, at its path.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// Where, from the top of the value read.
    pub path: Path,
    /// What.
    pub what: What,
}

impl Problem {
    /// `what`, at the path being read now.
    fn here(what: What) -> Problem {
        Problem {
            path: Path(PATH.with(|p| p.borrow().clone())),
            what,
        }
    }
}

/// `a number in (0, 1], got 1.5`-style words: what was expected, then what came. serde names
/// some primitives by their Rust type (`u32`); those are said in words.
pub(crate) fn expected_words(expected: &str) -> &str {
    match expected {
        "u32" => "a whole number up to 4294967295",
        "u64" | "usize" => "a whole number",
        other => other,
    }
}

/// serde's list of names, quoted: `"a"`, `"a" or "b"`, `"a", "b", "c"`.
fn quoted(names: &[&str]) -> String {
    let q: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    match q.len() {
        2 => format!("{} or {}", q[0], q[1]),
        _ => q.join(", "),
    }
}

impl What {
    /// What the value should have been, then what it was (for `expected ...` in a message).
    pub fn expected(&self) -> String {
        match self {
            What::UnknownField { known: [], .. } => "no such option (this call takes none)".into(),
            What::UnknownField { known, .. } => format!("no such option (known: {})", known.join(", ")),
            What::MissingField { field } => format!("an object with {field}"),
            What::DuplicateField { field } => format!("each key once, got {field} twice"),
            What::InvalidType { got, expected } | What::InvalidValue { got, expected } => {
                format!("{}, got {got}", expected_words(expected))
            }
            What::InvalidLength { len, expected } => format!("{expected}, got a length of {len}"),
            What::UnknownVariant { got, known } => format!("{}, got \"{got}\"", quoted(known)),
            What::OutOfRange { reason } => reason.clone(),
            What::UnknownName { kind, name } => {
                format!("a known {kind:?} name, got \"{name}\"").to_lowercase()
            }
            What::Other { message } => message.clone(),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.what.expected())
    }
}

impl std::error::Error for Problem {}

/// What serde's `Unexpected` says, with JSON's `null` for serde's unit.
fn unexpected(u: de::Unexpected) -> String {
    match u {
        de::Unexpected::Unit => "null".into(),
        other => other.to_string(),
    }
}

impl de::Error for Problem {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        if let Some(whole) = WHOLE.with(|w| w.borrow_mut().take()) {
            return whole;
        }
        let named = NAMED.with(|n| n.borrow_mut().take());
        let what = match (named, RANGE.with(|r| r.borrow_mut().take())) {
            (Some((kind, name)), _) => What::UnknownName { kind, name },
            (None, Some(reason)) => What::OutOfRange { reason },
            (None, None) => What::Other {
                message: msg.to_string(),
            },
        };
        Problem::here(what)
    }
    fn invalid_type(got: de::Unexpected, expected: &dyn de::Expected) -> Self {
        Problem::here(What::InvalidType {
            got: unexpected(got),
            expected: expected.to_string(),
        })
    }
    fn invalid_value(got: de::Unexpected, expected: &dyn de::Expected) -> Self {
        Problem::here(What::InvalidValue {
            got: unexpected(got),
            expected: expected.to_string(),
        })
    }
    fn invalid_length(len: usize, expected: &dyn de::Expected) -> Self {
        Problem::here(What::InvalidLength {
            len,
            expected: expected.to_string(),
        })
    }
    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        Problem::here(What::UnknownVariant {
            got: variant.to_owned(),
            known: expected,
        })
    }
    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        Problem::here(What::UnknownField {
            field: field.to_owned(),
            known: expected,
        })
    }
    fn missing_field(field: &'static str) -> Self {
        Problem::here(What::MissingField { field })
    }
    fn duplicate_field(field: &'static str) -> Self {
        Problem::here(What::DuplicateField { field })
    }
}

thread_local! {
    /// The path being read now.
    static PATH: RefCell<Vec<Segment>> = const { RefCell::new(Vec::new()) };
    /// A `Problem` on its way through the inner deserializer ([`carry`], [`back`]).
    static CARRIED: RefCell<Option<Problem>> = const { RefCell::new(None) };
    /// The reason [`out_of_range`] gave, for the `custom` error that follows it.
    static RANGE: RefCell<Option<String>> = const { RefCell::new(None) };
    /// The name [`unknown_name`] refused, for the `custom` error that follows it.
    static NAMED: RefCell<Option<(Named, String)>> = const { RefCell::new(None) };
    /// A whole `Problem` found reading a part ([`read_part`]), for the `custom` error that
    /// follows it.
    static WHOLE: RefCell<Option<Problem>> = const { RefCell::new(None) };
}

/// The error a name-reading type returns for a name it does not know: read by [`Tracked`] as
/// [`What::UnknownName`] (any other deserializer sees a custom error naming it).
pub(crate) fn unknown_name<E: de::Error>(kind: Named, name: String) -> E {
    let message = format!("unknown {kind:?} {name:?}").to_lowercase();
    NAMED.with(|n| *n.borrow_mut() = Some((kind, name)));
    E::custom(message)
}

/// The error a checked type returns for a value of the right type out of range: read by
/// [`Tracked`] as [`What::OutOfRange`] (any other deserializer sees a custom error with
/// `reason` as its message).
pub(crate) fn out_of_range<E: de::Error>(reason: String) -> E {
    RANGE.with(|r| *r.borrow_mut() = Some(reason.clone()));
    E::custom(reason)
}

/// Hands `problem` to the inner deserializer's error type: parked, to be picked up by [`back`].
fn carry<E: de::Error>(problem: Problem) -> E {
    CARRIED.with(|c| *c.borrow_mut() = Some(problem));
    E::custom("a ctxfold option error (carried)")
}

/// The inner deserializer's error as a `Problem`: the parked one, or its own (bad JSON) at
/// the path being read.
fn back<E: fmt::Display>(e: E) -> Problem {
    CARRIED.with(|c| c.borrow_mut().take()).unwrap_or_else(|| {
        Problem::here(What::Other {
            message: e.to_string(),
        })
    })
}

/// Reads `T` through `de`, its path and problem tracked. The thread's tracking state is
/// saved and restored around the read, so a read inside another's is its own.
pub fn read<'de, T: de::Deserialize<'de>, D: Deserializer<'de>>(de: D) -> Result<T, Problem> {
    let saved = PATH.with(|p| std::mem::take(&mut *p.borrow_mut()));
    RANGE.with(|r| r.borrow_mut().take());
    NAMED.with(|n| n.borrow_mut().take());
    CARRIED.with(|c| c.borrow_mut().take());
    WHOLE.with(|w| w.borrow_mut().take());
    let out = T::deserialize(Tracked { de, key: false });
    PATH.with(|p| *p.borrow_mut() = saved);
    RANGE.with(|r| r.borrow_mut().take());
    NAMED.with(|n| n.borrow_mut().take());
    CARRIED.with(|c| c.borrow_mut().take());
    WHOLE.with(|w| w.borrow_mut().take());
    out
}

/// The wrapper: `de`, read with `deserialize_any` (keys with the hint they are given: a map
/// with number keys reads them from strings).
struct Tracked<D> {
    de: D,
    key: bool,
}

macro_rules! by_any {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, Problem> {
                let visit = Visit { inner: visitor, key: self.key };
                match self.key {
                    true => self.de.$method($($arg,)* visit).map_err(back),
                    false => self.de.deserialize_any(visit).map_err(back),
                }
            }
        )*
    };
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Tracked<D> {
    type Error = Problem;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Problem> {
        let key = self.key;
        self.de
            .deserialize_any(Visit { inner: visitor, key })
            .map_err(back)
    }
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Problem> {
        let key = self.key;
        self.de
            .deserialize_option(Visit { inner: visitor, key })
            .map_err(back)
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Problem> {
        // By its hint: serde_json's RawValue is a newtype struct it knows by name.
        let key = self.key;
        self.de
            .deserialize_newtype_struct(name, Visit { inner: visitor, key })
            .map_err(back)
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Problem> {
        match self.key {
            true => self
                .de
                .deserialize_enum(
                    name,
                    variants,
                    Visit {
                        inner: visitor,
                        key: true,
                    },
                )
                .map_err(back),
            false => self.de.deserialize_any(Variant(visitor)).map_err(back),
        }
    }
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Problem> {
        let key = self.key;
        self.de
            .deserialize_ignored_any(Visit { inner: visitor, key })
            .map_err(back)
    }

    by_any! {
        deserialize_bool();
        deserialize_i8();
        deserialize_i16();
        deserialize_i32();
        deserialize_i64();
        deserialize_i128();
        deserialize_u8();
        deserialize_u16();
        deserialize_u32();
        deserialize_u64();
        deserialize_u128();
        deserialize_f32();
        deserialize_f64();
        deserialize_char();
        deserialize_str();
        deserialize_string();
        deserialize_bytes();
        deserialize_byte_buf();
        deserialize_unit();
        deserialize_unit_struct(name: &'static str);
        deserialize_seq();
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_map();
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_identifier();
    }
}

/// The caller's visitor, called with `Problem` as its error type. For a key (`key`), the
/// key goes on the path before the visitor sees it.
struct Visit<V> {
    inner: V,
    key: bool,
}

impl<V> Visit<V> {
    fn push_key(&self, key: &dyn fmt::Display) {
        if self.key {
            PATH.with(|p| p.borrow_mut().push(Segment::Key(key.to_string())));
        }
    }
}

macro_rules! visit_scalars {
    ($($method:ident($ty:ty);)*) => {
        $(
            fn $method<E: de::Error>(self, v: $ty) -> Result<V::Value, E> {
                self.push_key(&v);
                self.inner.$method::<Problem>(v).map_err(carry)
            }
        )*
    };
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Visit<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.inner.expecting(f)
    }

    visit_scalars! {
        visit_bool(bool);
        visit_i8(i8);
        visit_i16(i16);
        visit_i32(i32);
        visit_i64(i64);
        visit_i128(i128);
        visit_u8(u8);
        visit_u16(u16);
        visit_u32(u32);
        visit_u64(u64);
        visit_u128(u128);
        visit_f32(f32);
        visit_f64(f64);
        visit_char(char);
        visit_str(&str);
        visit_borrowed_str(&'de str);
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        self.push_key(&v);
        self.inner.visit_string::<Problem>(v).map_err(carry)
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<V::Value, E> {
        self.inner.visit_bytes::<Problem>(v).map_err(carry)
    }
    fn visit_borrowed_bytes<E: de::Error>(self, v: &'de [u8]) -> Result<V::Value, E> {
        self.inner.visit_borrowed_bytes::<Problem>(v).map_err(carry)
    }
    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<V::Value, E> {
        self.inner.visit_byte_buf::<Problem>(v).map_err(carry)
    }
    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_none::<Problem>().map_err(carry)
    }
    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_unit::<Problem>().map_err(carry)
    }
    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        self.inner
            .visit_some(Tracked { de, key: self.key })
            .map_err(carry)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        self.inner
            .visit_newtype_struct(Tracked { de, key: self.key })
            .map_err(carry)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.inner.visit_seq(Seq { seq, index: 0 }).map_err(carry)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.inner.visit_map(Map { map, pushed: false }).map_err(carry)
    }
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.inner.visit_enum(Enum(data)).map_err(carry)
    }
}

/// An enum read from a self-describing value: a string is a unit variant; anything else is
/// the wrong type for it (options take enums as strings only).
struct Variant<V>(V);

impl<'de, V: Visitor<'de>> Visitor<'de> for Variant<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.0.expecting(f)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        self.0
            .visit_enum(de::value::StrDeserializer::<Problem>::new(v))
            .map_err(carry)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<V::Value, E> {
        self.wrong(de::Unexpected::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<V::Value, E> {
        self.wrong(de::Unexpected::Signed(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<V::Value, E> {
        self.wrong(de::Unexpected::Unsigned(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<V::Value, E> {
        self.wrong(de::Unexpected::Float(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.wrong(de::Unexpected::Unit)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<V::Value, A::Error> {
        self.wrong(de::Unexpected::Seq)
    }
    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<V::Value, A::Error> {
        self.wrong(de::Unexpected::Map)
    }
}

impl<'de, V: Visitor<'de>> Variant<V> {
    fn wrong<E: de::Error>(self, got: de::Unexpected) -> Result<V::Value, E> {
        Err(carry(<Problem as de::Error>::invalid_type(got, &self)))
    }
}

/// Array elements, each at its index.
struct Seq<A> {
    seq: A,
    index: usize,
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Seq<A> {
    type Error = Problem;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Problem> {
        PATH.with(|p| p.borrow_mut().push(Segment::Index(self.index)));
        let out = self
            .seq
            .next_element_seed(Seed { seed, key: false })
            .map_err(back)?;
        PATH.with(|p| p.borrow_mut().pop());
        self.index += 1;
        Ok(out)
    }
    fn size_hint(&self) -> Option<usize> {
        self.seq.size_hint()
    }
}

/// Object members, each value at its key (the key goes on the path as it is read).
struct Map<A> {
    map: A,
    pushed: bool,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Map<A> {
    type Error = Problem;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Problem> {
        let depth = PATH.with(|p| p.borrow().len());
        let out = self.map.next_key_seed(Seed { seed, key: true }).map_err(back)?;
        self.pushed = PATH.with(|p| p.borrow().len()) > depth;
        Ok(out)
    }
    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Problem> {
        let out = self
            .map
            .next_value_seed(Seed { seed, key: false })
            .map_err(back)?;
        if std::mem::take(&mut self.pushed) {
            PATH.with(|p| p.borrow_mut().pop());
        }
        Ok(out)
    }
    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

/// An enum the inner deserializer reads (a key's).
struct Enum<A>(A);

impl<'de, A: EnumAccess<'de>> EnumAccess<'de> for Enum<A> {
    type Error = Problem;
    type Variant = Enum<A::Variant>;

    fn variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<(T::Value, Self::Variant), Problem> {
        let (value, variant) = self.0.variant_seed(Seed { seed, key: false }).map_err(back)?;
        Ok((value, Enum(variant)))
    }
}

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for Enum<A> {
    type Error = Problem;

    fn unit_variant(self) -> Result<(), Problem> {
        self.0.unit_variant().map_err(back)
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Problem> {
        self.0
            .newtype_variant_seed(Seed { seed, key: false })
            .map_err(back)
    }
    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, Problem> {
        self.0
            .tuple_variant(
                len,
                Visit {
                    inner: visitor,
                    key: false,
                },
            )
            .map_err(back)
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Problem> {
        self.0
            .struct_variant(
                fields,
                Visit {
                    inner: visitor,
                    key: false,
                },
            )
            .map_err(back)
    }
}

/// The caller's seed, given the tracked deserializer.
struct Seed<S> {
    seed: S,
    key: bool,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<S::Value, D::Error> {
        self.seed
            .deserialize(Tracked { de, key: self.key })
            .map_err(carry)
    }
}
