//! Routing a session's one output stream to the calls an MCP server runs at once: each
//! call's live output, approval questions and withdrawals go to the request that started
//! it, by the call's id. A question whose call nobody routes is refused (nothing may run
//! unasked); a grant question is answered "no" (an MCP client never widens a grant).
//!
//! Invariant: a call is registered before its first output can exist
//! ([`airlock_door::Call`] runs only when awaited), and unregistered when its request ends.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::mpsc;

use airlock_door::events::Event;
use airlock_door::{Orders, Output, Question};
use airlock_protocol::{Answer, GrantAnswer, Order};

/// What a running call's request is told.
#[derive(Debug)]
pub(super) enum CallOutput {
    /// A chunk of the call's live output.
    Live(String),
    /// The call waits for a person's approval.
    Question(Box<Question>),
    /// Question `id` no longer waits.
    Withdrawn(u64),
    /// A warning about the call's tool (what it runs without, and the `airlock plugins
    /// grant` command that would grant it): told to the client with the call's result.
    Warning(String),
}

/// The calls running now, by id.
#[derive(Debug, Default, Clone)]
pub(super) struct Routes(Arc<Mutex<State>>);

#[derive(Debug, Default)]
struct State {
    /// Each running call's tool and its route.
    calls: HashMap<String, (String, mpsc::UnboundedSender<CallOutput>)>,
    /// Which call each open question belongs to.
    questions: HashMap<u64, String>,
}

impl Routes {
    /// Routes the outputs of call `id` of `tool` to the returned receiver until
    /// [`Routes::remove`].
    pub(super) fn add(&self, id: &str, tool: &str) -> mpsc::UnboundedReceiver<CallOutput> {
        let (send, receive) = mpsc::unbounded_channel();
        self.lock().calls.insert(id.to_owned(), (tool.to_owned(), send));
        receive
    }

    pub(super) fn remove(&self, id: &str) {
        let mut state = self.lock();
        state.calls.remove(id);
        state.questions.retain(|_, call| call != id);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn send(&self, call: &str, output: CallOutput) -> bool {
        self.lock().calls.get(call).is_some_and(|(_, route)| route.send(output).is_ok())
    }

    /// Hands a warning that starts by naming a tool (`` `read_path` (plugin …) runs without
    /// …``) to the running calls of that tool.
    fn warn(&self, message: &str) {
        for (tool, route) in self.lock().calls.values() {
            if message.starts_with(&format!("`{tool}` ")) {
                let _ = route.send(CallOutput::Warning(message.to_owned()));
            }
        }
    }

    /// Reads `outputs` to its end, handing each output to its call.
    pub(super) async fn run(self, mut outputs: mpsc::UnboundedReceiver<Output>, orders: Orders) {
        while let Some(output) = outputs.recv().await {
            match output {
                Output::Event(Event::ToolOutput { call_id, chunk }) => {
                    self.send(&call_id, CallOutput::Live(chunk));
                }
                Output::Event(Event::Warning { message }) => self.warn(&message),
                Output::Question(question) => {
                    let (id, call) = (question.id, question.request.call_id.clone());
                    self.lock().questions.insert(id, call.clone());
                    if !self.send(&call, CallOutput::Question(question)) {
                        self.lock().questions.remove(&id);
                        let message = "nobody waits for this call any more".to_owned();
                        orders.submit(Order::Approve { id, answer: Answer::Refuse { message } });
                    }
                }
                Output::Withdrawn { id } => {
                    let call = self.lock().questions.remove(&id);
                    if let Some(call) = call {
                        self.send(&call, CallOutput::Withdrawn(id));
                    }
                }
                // The call's failure names the `airlock plugins grant` command that would
                // allow it: a person runs it, never a client.
                Output::Grant(question) => orders.submit(Order::Grant { id: question.id, answer: GrantAnswer::No }),
                Output::Event(_) | Output::TurnDone(_) | Output::Replay(_) => {}
            }
        }
    }
}
