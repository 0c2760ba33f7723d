//! Deploy hooks: the URL a project saves, the addresses it may reach, and the POST that asks its
//! hosting platform to rebuild.

mod address;

pub use address::{AddressPolicy, is_global};
