//! Hooks through the real binary (issue 28, item 1).

mod component;
