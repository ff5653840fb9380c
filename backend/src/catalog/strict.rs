//! A JSON value deserializer that reads structs only from JSON objects. serde's derive also
//! accepts a struct as an array of its fields in order (`["a", 1]`), which for an API
//! means a typo silently becomes data; here that is an error, at every depth.

use serde::de::{self, DeserializeSeed, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

macro_rules! delegate {
    ($($method:ident)*) => {
        $(fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            self.0.$method(visitor)
        })*
    };
}

/// Deserializes like `serde_json::Value` does, except that structs must be objects.
pub struct Strict(pub Value);

type Error = serde_json::Error;

impl<'de> de::Deserializer<'de> for Strict {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Array(items) => visitor.visit_seq(Seq(items.into_iter())),
            Value::Object(map) => visitor.visit_map(Fields::new(map)),
            other => other.deserialize_any(visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            value => visitor.visit_some(Strict(value)),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.0 {
            Value::Object(map) => visitor.visit_map(Fields::new(map)),
            other => Err(de::Error::invalid_type(
                unexpected(&other),
                &"a JSON object",
            )),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.0.deserialize_enum(name, variants, visitor)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Array(items) => visitor.visit_seq(Seq(items.into_iter())),
            other => other.deserialize_seq(visitor),
        }
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Object(map) => visitor.visit_map(Fields::new(map)),
            other => other.deserialize_map(visitor),
        }
    }

    // Scalars (and the types that read themselves from scalars, like uuids) are read as
    // `serde_json::Value` reads them, so a scalar never comes from an array.
    delegate! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char deserialize_str
        deserialize_string deserialize_bytes deserialize_byte_buf deserialize_unit
        deserialize_identifier deserialize_ignored_any
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.0.deserialize_unit_struct(name, visitor)
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }
}

fn unexpected(value: &Value) -> de::Unexpected<'_> {
    match value {
        Value::Null => de::Unexpected::Unit,
        Value::Bool(b) => de::Unexpected::Bool(*b),
        Value::Number(_) => de::Unexpected::Other("a number"),
        Value::String(s) => de::Unexpected::Str(s),
        Value::Array(_) => de::Unexpected::Seq,
        Value::Object(_) => de::Unexpected::Map,
    }
}

struct Seq(std::vec::IntoIter<Value>);

impl<'de> SeqAccess<'de> for Seq {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        self.0
            .next()
            .map(|value| seed.deserialize(Strict(value)))
            .transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

struct Fields {
    entries: serde_json::map::IntoIter,
    value: Option<Value>,
}

impl Fields {
    fn new(map: Map<String, Value>) -> Self {
        Self {
            entries: map.into_iter(),
            value: None,
        }
    }
}

impl<'de> MapAccess<'de> for Fields {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        match self.entries.next() {
            Some((key, value)) => {
                self.value = Some(value);
                seed.deserialize(key.into_deserializer()).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        match self.value.take() {
            Some(value) => seed.deserialize(Strict(value)),
            None => Err(de::Error::custom("a value must follow its key")),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::Strict;

    #[derive(Debug, Deserialize, PartialEq)]
    struct Inner {
        a: String,
        b: u32,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct Outer {
        inner: Option<Inner>,
        list: Vec<Inner>,
        tags: Vec<String>,
    }

    fn parse(v: serde_json::Value) -> Result<Outer, serde_json::Error> {
        Outer::deserialize(Strict(v))
    }

    #[test]
    fn objects_are_read_and_arrays_are_not_structs() {
        let ok = parse(serde_json::json!({
            "inner": { "a": "x", "b": 1 }, "list": [{ "a": "y", "b": 2 }], "tags": ["t"]
        }));
        assert!(ok.is_ok(), "{ok:?}");
        assert!(parse(serde_json::json!({ "inner": ["x", 1], "list": [], "tags": [] })).is_err());
        assert!(
            parse(serde_json::json!({ "inner": null, "list": [["y", 2]], "tags": [] })).is_err()
        );
        assert!(parse(serde_json::json!([null, [], []])).is_err());
    }
}
