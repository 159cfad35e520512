//! A session's custom commands as a front end holds them: the list found at start, and
//! their expansion against the workspace and the folders added to the session at the time
//! of the run. Cheap to clone (the interactive UI keeps one beside the session).

use std::path::PathBuf;
use std::sync::Arc;

use super::CurrentTools;
use crate::prompts::commands::{self, Commands};
use crate::prompts::expand::{self, Expanded, Roots};

/// The custom commands of a session.
#[derive(Debug, Clone)]
pub struct CustomCommands {
    commands: Arc<Commands>,
    workspace: Arc<PathBuf>,
    current: CurrentTools,
}

impl CustomCommands {
    pub(super) fn new(commands: Arc<Commands>, workspace: PathBuf, current: CurrentTools) -> Self {
        Self { commands, workspace: Arc::new(workspace), current }
    }

    /// The commands found when the session started.
    pub fn list(&self) -> &Commands {
        &self.commands
    }

    /// The command `name` expanded with `args` for one run: includes read from the
    /// workspace and the folders added to the session now; `Err` names the known commands
    /// when there is no such command.
    pub fn expand(&self, name: &str, args: &str) -> Result<Expanded, String> {
        let Some(command) = self.commands.get(name) else {
            return Err(commands::unknown(&self.commands, name));
        };
        let added: Vec<_> = self.current.get().policy.added_folders().into_iter().map(|f| f.path).collect();
        Ok(expand::expand(command, args, Roots { workspace: &self.workspace, added: &added }))
    }
}
