//! What kiln-bench measures a process with, as a library so that its tests can run it
//! from a process of their own: [`measure`] runs one command through [`launch`], the
//! launcher that kiln-bench's `main` becomes when its first argument is [`launch::ARG`].

pub mod launch;
pub mod measure;
