//! A value's serde form with every `Span` left out, as bytes to compare:
//! two programs that differ only in where their declarations sit (a
//! comment added, a line inserted above) have the same shape.
//!
//! A `serde::Serializer` that writes each scalar, after a tag for its
//! kind, into one byte buffer, and skips any struct named `Span`. Strings
//! and containers carry their lengths, so `[a, b] [c]` and `[a] [b, c]`
//! differ; the names of types and fields are written as their addresses
//! (the same within one process, which is as long as a shape is kept).
//! Two shapes are compared byte for byte (no hash, no collision).

use std::fmt::Display;

use serde::ser::{self, Serialize};

/// The shape of `value` (see the module doc).
pub fn shape_of<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    let mut h = Shape::new();
    h.add(value);
    h.finish()
}

/// A shape made of values added in turn.
#[derive(Default)]
pub struct Shape {
    buf: Vec<u8>,
}

impl Shape {
    /// An empty shape.
    pub fn new() -> Shape {
        Shape::default()
    }

    /// An empty shape with room for `n` bytes (a last key's length, so
    /// making a key of the same program grows no buffer).
    pub fn with_capacity(n: usize) -> Shape {
        Shape {
            buf: Vec::with_capacity(n),
        }
    }

    /// Adds `value` (its spans left out).
    pub fn add<T: Serialize + ?Sized>(&mut self, value: &T) {
        // Our serializer never fails: `Never` is never made.
        let _ = value.serialize(&mut *self);
    }

    /// The bytes so far.
    pub fn finish(self) -> Vec<u8> {
        self.buf
    }

    fn put(&mut self, tag: u8, bytes: &[u8]) {
        self.buf.push(tag);
        self.buf.extend_from_slice(bytes);
    }

    /// A tag and a length-prefixed byte string.
    fn put_str(&mut self, tag: u8, bytes: &[u8]) {
        self.put(tag, &(bytes.len() as u64).to_le_bytes());
        self.buf.extend_from_slice(bytes);
    }

    /// A name the program's own types give (a struct's, a field's): by
    /// where it sits, which stays the same within one process.
    fn put_name(&mut self, tag: u8, name: &'static str) {
        self.put(tag, &(name.as_ptr() as usize as u64).to_le_bytes());
        self.buf
            .extend_from_slice(&(name.len() as u64).to_le_bytes());
    }

    fn put_len(&mut self, tag: u8, len: Option<usize>) {
        match len {
            Some(n) => self.put(tag, &(n as u64).to_le_bytes()),
            None => self.put(tag, &[0xff]),
        }
    }
}

/// The serializer's error: never made (serde requires the type).
#[derive(Debug)]
pub struct Never;

impl Display for Never {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("shape hash")
    }
}

impl std::error::Error for Never {}

impl ser::Error for Never {
    fn custom<T: Display>(_: T) -> Never {
        Never
    }
}

/// A compound value's parts go to the same hash; `skip` when it is a span.
pub struct Part<'s> {
    shape: &'s mut Shape,
    skip: bool,
}

macro_rules! scalar {
    ($($f:ident: $t:ty = $tag:expr;)*) => {$(
        fn $f(self, v: $t) -> Result<(), Never> {
            self.put($tag, &v.to_le_bytes());
            Ok(())
        }
    )*};
}

impl<'s> ser::Serializer for &'s mut Shape {
    type Ok = ();
    type Error = Never;
    type SerializeSeq = Part<'s>;
    type SerializeTuple = Part<'s>;
    type SerializeTupleStruct = Part<'s>;
    type SerializeTupleVariant = Part<'s>;
    type SerializeMap = Part<'s>;
    type SerializeStruct = Part<'s>;
    type SerializeStructVariant = Part<'s>;

    scalar! {
        serialize_i8: i8 = 2;
        serialize_i16: i16 = 3;
        serialize_i32: i32 = 4;
        serialize_i64: i64 = 5;
        serialize_i128: i128 = 6;
        serialize_u8: u8 = 7;
        serialize_u16: u16 = 8;
        serialize_u32: u32 = 9;
        serialize_u64: u64 = 10;
        serialize_u128: u128 = 11;
        serialize_f32: f32 = 15;
        serialize_f64: f64 = 16;
    }

    fn serialize_bool(self, v: bool) -> Result<(), Never> {
        self.put(1, &[v as u8]);
        Ok(())
    }

    fn serialize_char(self, v: char) -> Result<(), Never> {
        self.put(12, &(v as u32).to_le_bytes());
        Ok(())
    }

    fn serialize_str(self, v: &str) -> Result<(), Never> {
        self.put_str(13, v.as_bytes());
        Ok(())
    }

    fn serialize_bytes(self, v: &[u8]) -> Result<(), Never> {
        self.put_str(14, v);
        Ok(())
    }

    fn serialize_none(self) -> Result<(), Never> {
        self.put(17, &[]);
        Ok(())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<(), Never> {
        self.put(18, &[]);
        v.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), Never> {
        self.put(19, &[]);
        Ok(())
    }

    fn serialize_unit_struct(self, name: &'static str) -> Result<(), Never> {
        self.put_name(20, name);
        Ok(())
    }

    fn serialize_unit_variant(self, _: &'static str, i: u32, _: &'static str) -> Result<(), Never> {
        self.put(21, &i.to_le_bytes());
        Ok(())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        v: &T,
    ) -> Result<(), Never> {
        self.put_name(22, name);
        v.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        i: u32,
        _: &'static str,
        v: &T,
    ) -> Result<(), Never> {
        self.put(23, &i.to_le_bytes());
        v.serialize(self)
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Part<'s>, Never> {
        self.put_len(24, len);
        Ok(Part {
            shape: self,
            skip: false,
        })
    }

    fn serialize_tuple(self, len: usize) -> Result<Part<'s>, Never> {
        self.put_len(25, Some(len));
        Ok(Part {
            shape: self,
            skip: false,
        })
    }

    fn serialize_tuple_struct(self, name: &'static str, _: usize) -> Result<Part<'s>, Never> {
        self.put_name(26, name);
        Ok(Part {
            shape: self,
            skip: false,
        })
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        i: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Part<'s>, Never> {
        self.put(27, &i.to_le_bytes());
        Ok(Part {
            shape: self,
            skip: false,
        })
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Part<'s>, Never> {
        self.put_len(28, len);
        Ok(Part {
            shape: self,
            skip: false,
        })
    }

    fn serialize_struct(self, name: &'static str, _: usize) -> Result<Part<'s>, Never> {
        let skip = name == "Span";
        if !skip {
            self.put_name(29, name);
        }
        Ok(Part { shape: self, skip })
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        i: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Part<'s>, Never> {
        self.put(30, &i.to_le_bytes());
        Ok(Part {
            shape: self,
            skip: false,
        })
    }
}

impl Part<'_> {
    fn part<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Never> {
        if !self.skip {
            v.serialize(&mut *self.shape)?;
        }
        Ok(())
    }

    fn end(self) -> Result<(), Never> {
        if !self.skip {
            self.shape.put(31, &[]);
        }
        Ok(())
    }
}

macro_rules! compound {
    ($($tr:ident :: $f:ident;)*) => {$(
        impl ser::$tr for Part<'_> {
            type Ok = ();
            type Error = Never;
            fn $f<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Never> {
                self.part(v)
            }
            fn end(self) -> Result<(), Never> {
                Part::end(self)
            }
        }
    )*};
}

compound! {
    SerializeSeq::serialize_element;
    SerializeTuple::serialize_element;
    SerializeTupleStruct::serialize_field;
    SerializeTupleVariant::serialize_field;
}

impl ser::SerializeMap for Part<'_> {
    type Ok = ();
    type Error = Never;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, k: &T) -> Result<(), Never> {
        self.part(k)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Never> {
        self.part(v)
    }
    fn end(self) -> Result<(), Never> {
        Part::end(self)
    }
}

impl ser::SerializeStruct for Part<'_> {
    type Ok = ();
    type Error = Never;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), Never> {
        if !self.skip {
            self.shape.put_name(32, key);
        }
        self.part(v)
    }
    fn skip_field(&mut self, key: &'static str) -> Result<(), Never> {
        if !self.skip {
            self.shape.put_name(33, key);
        }
        Ok(())
    }
    fn end(self) -> Result<(), Never> {
        Part::end(self)
    }
}

impl ser::SerializeStructVariant for Part<'_> {
    type Ok = ();
    type Error = Never;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), Never> {
        self.shape.put_name(32, key);
        self.part(v)
    }
    fn end(self) -> Result<(), Never> {
        Part::end(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use p4cost_ir::{FileId, Span};
    use serde::Serialize;

    #[derive(Serialize)]
    struct Decl {
        name: String,
        span: Span,
        size: Option<u64>,
    }

    fn decl(name: &str, lo: u32, size: Option<u64>) -> Decl {
        Decl {
            name: name.to_string(),
            span: Span {
                file: FileId(0),
                lo,
                hi: lo + 10,
                line: lo / 10 + 1,
                col: 1,
            },
            size,
        }
    }

    #[test]
    fn spans_do_not_count_and_everything_else_does() {
        let a = vec![decl("t", 100, Some(1024)), decl("u", 200, None)];
        let moved = vec![decl("t", 130, Some(1024)), decl("u", 230, None)];
        assert_eq!(shape_of(&a), shape_of(&moved));
        let resized = vec![decl("t", 100, Some(2048)), decl("u", 200, None)];
        assert_ne!(shape_of(&a), shape_of(&resized));
        let renamed = vec![decl("t", 100, Some(1024)), decl("v", 200, None)];
        assert_ne!(shape_of(&a), shape_of(&renamed));
        let swapped = vec![decl("u", 100, None), decl("t", 200, Some(1024))];
        assert_ne!(shape_of(&a), shape_of(&swapped));
    }

    #[test]
    fn lengths_count() {
        let one: (Vec<u8>, Vec<u8>) = (vec![1, 2], vec![3]);
        let two: (Vec<u8>, Vec<u8>) = (vec![1], vec![2, 3]);
        assert_ne!(shape_of(&one), shape_of(&two));
        assert_ne!(shape_of(&Some(0u32)), shape_of(&None::<u32>));
    }
}
