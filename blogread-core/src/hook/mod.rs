//! Deploy hooks: the URL a project saves, the addresses it may reach, and the POST that asks its
//! hosting platform to rebuild.

mod address;
mod resolver;
mod url;

pub use address::{AddressPolicy, is_global};
pub use resolver::{Resolver, StaticResolver, SystemResolver};
pub use url::{DeployHookUrl, HookUrlError, MIN_LENGTH};
