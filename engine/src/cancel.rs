//! Cancellation of a run (Ctrl-C, a signal, a cancelled approval): one handle that async
//! code can await and guests see through the epoch callback.

use tokio_util::sync::CancellationToken;

use crate::runtime::CancelFlag;

/// Cancels everything that holds a clone of it.
#[derive(Debug, Clone, Default)]
pub struct Cancellation {
    token: CancellationToken,
    flag: CancelFlag,
}

impl Cancellation {
    pub fn cancel(&self) {
        self.flag.cancel();
        self.token.cancel();
    }

    pub fn is_cancelled(&self) -> bool {
        self.token.is_cancelled()
    }

    /// Resolves once cancelled.
    pub async fn cancelled(&self) {
        self.token.cancelled().await;
    }

    /// The flag running guests check at every epoch tick.
    pub fn flag(&self) -> CancelFlag {
        self.flag.clone()
    }
}
