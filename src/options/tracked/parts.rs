//! Reading by a type's parts: the keys a struct declares ([`field_names`]), and a part of an
//! object set aside and read in place ([`read_part`]).

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};

use super::{read, Path, Problem, What, PATH, WHOLE};

/// Reads `T` from `value`, a part of the object being read that its type set aside (the keys
/// one of its fields reads, as serde's `flatten` would, which loses paths): a problem in it
/// is at its path from the top, as if the part had been read in place. Through
/// the tracked reader, the problem comes back whole; another deserializer sees a custom error
/// with its words.
pub(crate) fn read_part<T: DeserializeOwned, E: de::Error>(value: serde_json::Value) -> Result<T, E> {
    let here = PATH.with(|p| p.borrow().clone());
    read::<T, _>(value).map_err(|problem| {
        let whole = Problem {
            path: Path(here.into_iter().chain(problem.path.0).collect()),
            what: problem.what,
        };
        let message = whole.to_string();
        WHOLE.with(|w| *w.borrow_mut() = Some(whole));
        E::custom(message)
    })
}

/// The keys of a struct read from an object, as serde declares them (its `FIELDS`): asked of
/// the type itself, by a deserializer that takes note of them and reads nothing. Empty for a
/// type that is not such a struct.
pub fn field_names<T: DeserializeOwned>() -> &'static [&'static str] {
    use std::cell::Cell;
    struct Names<'a>(&'a Cell<&'static [&'static str]>);
    impl<'de> Deserializer<'de> for Names<'_> {
        type Error = Problem;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Problem> {
            Err(Problem::here(What::Other {
                message: "not a struct".into(),
            }))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            visitor: V,
        ) -> Result<V::Value, Problem> {
            self.0.set(fields);
            self.deserialize_any(visitor)
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
            ignored_any
        }
    }
    let names = Cell::new(&[][..]);
    // The type stops at the first error: after it has said what its keys are.
    let _ = T::deserialize(Names(&names));
    names.get()
}
