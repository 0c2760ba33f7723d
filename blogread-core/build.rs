//! Rebuilds the crate when a migration changes: `sqlx::migrate!` embeds them at build time.

fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
