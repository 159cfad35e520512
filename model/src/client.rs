//! [`ModelClient`]: one configured provider, and the retry loop all providers share.
//!
//! Invariant: a request is only sent again while nothing of its answer that a person or
//! the history would see (text, thoughts, calls) has been passed on to the caller, so a
//! retry never repeats text or calls; token counts alone do not stop a retry. A failure after that point is
//! [`ModelError::Interrupted`]; a failure that outlasts the retries is
//! [`ModelError::GaveUp`] naming the last one.

use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use super::{
    ModelError, ModelEvent, ModelRequest, ProviderConfig, ProviderKind, anthropic, gemini, openai, structured,
};

/// A client for one configured provider.
#[derive(Debug, Clone)]
pub struct ModelClient {
    config: ProviderConfig,
    http: reqwest::Client,
}

impl ModelClient {
    /// Builds a client. Building is cheap: no connection is made until the first request.
    /// Fails when an extra header is not valid HTTP.
    pub fn new(config: ProviderConfig) -> Result<Self, ModelError> {
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(30))
            .default_headers(extra_headers(&config.headers)?)
            .build()
            .map_err(|e| ModelError::Connect { url: config.base_url.clone(), reason: e.to_string() })?;
        Ok(Self { config, http })
    }

    pub fn config(&self) -> &ProviderConfig {
        &self.config
    }

    /// Sends one request and passes every event of the streamed answer to `on_event`, in
    /// order. Returns after [`ModelEvent::Finished`] was passed on, or with an error.
    /// Transient failures before the answer starts are retried as the provider's
    /// [`RetryPolicy`](super::RetryPolicy) says, each announced by a
    /// [`ModelEvent::Retrying`]. Dropping the future abandons the request, waits included.
    pub async fn stream(
        &self,
        request: ModelRequest<'_>,
        on_event: &mut (dyn FnMut(ModelEvent) + Send),
    ) -> Result<(), ModelError> {
        let policy = self.config.retry;
        let mut attempt = 1;
        loop {
            let mut passed_on = false;
            let result = {
                let mut forward = |event: ModelEvent| {
                    passed_on |= event.is_seen();
                    on_event(event);
                };
                self.attempt(request, &mut forward).await
            };
            let error = match result {
                Ok(()) => return Ok(()),
                Err(error) if passed_on => return Err(ModelError::Interrupted(Box::new(error))),
                Err(error) if !error.is_retryable() => return Err(error),
                Err(error) if attempt >= error.attempt_limit(&policy) => {
                    return Err(if attempt == 1 {
                        error
                    } else {
                        ModelError::GaveUp { attempts: attempt, last: Box::new(error) }
                    });
                }
                Err(error) => error,
            };
            let delay = policy.delay(attempt, error.retry_after());
            tracing::warn!(provider = %self.config.name, attempt, ?delay, %error, "retrying the model request");
            let max = error.attempt_limit(&policy).saturating_sub(1);
            on_event(ModelEvent::Retrying { attempt, max, delay, reason: error.to_string() });
            tokio::time::sleep(delay).await;
            attempt += 1;
        }
    }

    /// One request, no retries.
    async fn attempt(
        &self,
        request: ModelRequest<'_>,
        on_event: &mut (dyn FnMut(ModelEvent) + Send),
    ) -> Result<(), ModelError> {
        let body = request_body(&self.config, &request);
        match self.config.kind {
            ProviderKind::Gemini => gemini::stream(&self.http, &self.config, body, on_event).await,
            ProviderKind::Openai => openai::stream(&self.http, &self.config, body, on_event).await,
            ProviderKind::Anthropic => anthropic::stream(&self.http, &self.config, body, on_event).await,
        }
    }
}

/// The body `config`'s wire sends for `request`: bytes written straight from the history.
pub(crate) fn request_body(config: &ProviderConfig, request: &ModelRequest<'_>) -> Vec<u8> {
    match config.kind {
        ProviderKind::Gemini => {
            let takes = structured::gemini_takes(&config.model, !request.tools.is_empty());
            gemini::request_body(&ModelRequest { output_schema: request.output_schema.filter(|_| takes), ..*request })
        }
        ProviderKind::Openai => openai::request_body(&config.model, request),
        ProviderKind::Anthropic => anthropic::request_body(&config.model, config.max_tokens, request),
    }
}

/// The configured extra headers as reqwest sends them with every request.
fn extra_headers(headers: &[(String, String)]) -> Result<HeaderMap, ModelError> {
    let mut map = HeaderMap::new();
    for (name, value) in headers {
        let invalid = |reason: String| ModelError::InvalidHeader { name: name.clone(), reason };
        let header = HeaderName::from_bytes(name.as_bytes()).map_err(|e| invalid(e.to_string()))?;
        let value = HeaderValue::from_str(value).map_err(|e| invalid(e.to_string()))?;
        map.insert(header, value);
    }
    Ok(map)
}

#[cfg(test)]
#[path = "client_tests.rs"]
mod tests;
