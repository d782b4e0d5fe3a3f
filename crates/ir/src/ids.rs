//! Typed indices into the vectors of a [`crate::Program`].

use serde::{Deserialize, Serialize};

macro_rules! id_type {
    ($(#[$doc:meta] $name:ident),* $(,)?) => {$(
        #[$doc]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub u32);

        impl $name {
            /// The index this id stands for.
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    )*};
}

id_type!(
    /// Index into [`crate::Program::files`].
    FileId,
    /// Index into [`crate::Program::header_types`].
    HeaderTypeId,
    /// Index into [`crate::Program::headers`].
    HeaderId,
    /// Index into [`crate::Program::parsers`].
    ParserId,
    /// Index into [`crate::Parser::states`].
    StateId,
    /// Index into [`crate::Program::controls`].
    ControlId,
    /// Index into [`crate::Program::tables`].
    TableId,
    /// Index into [`crate::Program::actions`].
    ActionId,
    /// Index into [`crate::ControlFlow::nodes`].
    NodeId,
);
