//! Shared set-up for the engine's unit tests: a runtime with a compile cache shared by all
//! tests (content-addressed, so sharing is safe and keeps the suite fast), and a registry
//! of the built-ins plus chosen fixture components.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::capability::Roots;
use crate::events::{CallStatus, Event, EventSink};
use crate::policy::{ApprovalMode, Policy};
use crate::registry::{PluginDirs, Registry};
use crate::runtime::Runtime;

/// The compile cache shared by unit tests.
pub fn shared_cache() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/test-cache")
}

pub fn runtime() -> Arc<Runtime> {
    Arc::new(Runtime::new(shared_cache()).unwrap())
}

/// A temporary home whose plugin folder holds copies of `fixtures`, and a workspace.
pub struct Setup {
    pub home: tempfile::TempDir,
    pub workspace: PathBuf,
    _workspace_dir: tempfile::TempDir,
}

impl Setup {
    pub fn new(fixtures: &[&str]) -> Self {
        let home = tempfile::tempdir().unwrap();
        let plugins = home.path().join("plugins");
        std::fs::create_dir_all(&plugins).unwrap();
        for fixture in fixtures {
            let name = Path::new(fixture).file_name().unwrap();
            std::fs::copy(fixture, plugins.join(name)).unwrap();
        }
        let workspace_dir = tempfile::tempdir().unwrap();
        let workspace = workspace_dir.path().canonicalize().unwrap();
        Self { home, workspace, _workspace_dir: workspace_dir }
    }

    pub fn dirs(&self) -> PluginDirs {
        PluginDirs {
            user: self.home.path().join("plugins"),
            workspace: self.workspace.join(".airlock/plugins"),
            ..PluginDirs::default()
        }
    }

    pub async fn registry(&self, runtime: &Runtime) -> Arc<Registry> {
        Arc::new(Registry::load(runtime, &self.dirs()).await)
    }

    /// A policy whose user file holds `toml` (grants and rules).
    pub fn policy(&self, mode: ApprovalMode, toml: &str) -> Arc<Policy> {
        let path = self.home.path().join("policy.toml");
        std::fs::write(&path, toml).unwrap();
        let user = crate::policy::file::load(&path, crate::policy::rules::RuleSource::User).unwrap();
        let roots = Roots { workspace: self.workspace.clone(), home: None, memory: None };
        Arc::new(Policy::new(mode, roots, user))
    }
}

/// Records every event sent to it.
pub struct Recorder {
    pub sink: EventSink,
    events: Arc<Mutex<Vec<Event>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Recorder {
    pub fn new() -> Self {
        let (sink, mut receiver) = EventSink::new();
        let events = Arc::new(Mutex::new(Vec::new()));
        let store = events.clone();
        let task = tokio::spawn(async move {
            while let Some(event) = receiver.recv().await {
                store.lock().unwrap().push(event);
            }
        });
        Self { sink, events, task }
    }

    /// Stops recording and returns the events.
    pub async fn finish(self) -> Vec<Event> {
        drop(self.sink);
        self.task.await.unwrap();
        Arc::try_unwrap(self.events).unwrap().into_inner().unwrap()
    }
}

/// The sequence of states one call went through.
pub fn statuses(events: &[Event], call_id: &str) -> Vec<CallStatus> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::ToolCall(update) if update.call_id == call_id => Some(update.status),
            _ => None,
        })
        .collect()
}
