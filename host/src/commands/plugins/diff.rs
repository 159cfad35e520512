//! Capability diffs: what a new version of a plugin requests beyond the installed one, shown
//! before anything changes (`install` over an installed plugin, `update`); the new requests
//! get nothing until approved (`--approve`, `airlock plugins approve`), even where the grant
//! would already cover them, because a grant records the requests it was given for.

use std::io::Write;

use super::Context;
use crate::commands::CommandError;
use airlock_engine::registry::Plugin;

/// Prints what `new` requests beyond `old` (the installed plugin it replaces), before the
/// file is replaced.
pub(super) fn before_replace(
    _context: &Context<'_>,
    _old: &Plugin,
    _new: &Plugin,
    _out: &mut impl Write,
) -> Result<(), CommandError> {
    Ok(())
}

/// After `plugin` was installed (over `old`, if any): records in its grant which requests are
/// approved — the old version's, plus the new ones with `approve`.
pub(super) fn after_install(
    _context: &Context<'_>,
    _old: Option<&Plugin>,
    _plugin: &Plugin,
    _approve: bool,
    _out: &mut impl Write,
) -> Result<(), CommandError> {
    Ok(())
}

/// `airlock plugins update NAME`.
pub(super) async fn update(
    _context: &Context<'_>,
    _name: &str,
    _approve: bool,
    _out: &mut impl Write,
) -> Result<(), CommandError> {
    Err(CommandError::Usage("plugins update is not built yet".into()))
}

/// `airlock plugins approve NAME`.
pub(super) fn approve(_context: &Context<'_>, _name: &str, _out: &mut impl Write) -> Result<(), CommandError> {
    Err(CommandError::Usage("plugins approve is not built yet".into()))
}
