//! Outgoing HTTP for guests: `wasi:http` is linked for every component, and every request
//! passes [`HttpGate::send_request`] before anything touches the network.
//!
//! Invariants:
//! - a request goes out only when its scheme, host and port are allowed by the call's
//!   [`NetRule`]s (exact `scheme://host:port` comparison, see [`crate::capability::net`]),
//!   read by [`NetRule::for_authority`] from the very authority the connector connects to;
//!   URLs with a user name, or a port that is empty or not 1 to 65535, are refused outright. The check runs synchronously in
//!   `send_request`, before the connection is even started; a refused request fails with
//!   `error-code::HTTP-request-denied` and is recorded as a [`NetDenial`].
//! - the destination's name is resolved by the host, once; an address that is not public
//!   (loopback, private, link-local with the cloud metadata address, …) is refused unless a
//!   rule that allowed the request names it (its IP literal, or `localhost` for loopback:
//!   [`NetRule::names_address`]), and the connection goes to an address that passed
//!   ([`super::connect`]), never to a second resolution of the name (DNS rebinding).
//! - `wasi:http` never follows redirects (wasmtime-wasi-http hands the guest the 3xx as it
//!   came), so a guest that follows one sends a new request, checked like the first.
//! - a guest reads at most `response_cap` bytes of each response body; the read past it
//!   fails with `HTTP response body size exceeds limit` and is recorded as a denial.
//! - nothing waits past the call's deadline: connecting, the response head and the body are
//!   bounded by the time the call has left, whatever timeouts the guest asked for (epoch
//!   interruption cannot stop a guest that is blocked in the host).
//!
//! Raw sockets are not here: `wasi:sockets` stays at its deny-all default (see
//! `Runtime::instantiate`), and wasi:http requests do not go through it.

use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use http_body_util::BodyExt;
use wasmtime_wasi_http::{Error as HttpError, RequestOptions, WasiBody, WasiHttpHooks};

use crate::capability::net::{NetRule, Scheme, is_link_local, is_public};

/// Denials kept per call; a guest retrying in a loop does not grow the list further.
const MAX_DENIALS: usize = 64;
/// Longest URL kept in a denial.
const MAX_URL: usize = 300;

/// Why a request, or the rest of its response, was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DenialReason {
    #[error("no network grant allows it")]
    NotGranted,
    #[error("{0}")]
    Unsupported(&'static str),
    #[error("its response body is larger than the cap of {cap} bytes")]
    ResponseTooLarge { cap: usize },
    #[error(
        "{} is not a public address: only a grant naming that address (or localhost) reaches it",
        at(host, address)
    )]
    PrivateAddress { host: String, address: String },
}

/// `host`, with the address it resolved to when that is another string.
fn at(host: &str, address: &str) -> String {
    if host == address { host.to_string() } else { format!("{host} (at {address})") }
}

/// One request the gate refused, for the user's eyes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetDenial {
    /// `scheme://host[:port]/path` of the request (no query), shortened.
    pub url: String,
    pub reason: DenialReason,
    /// The narrowest rule that would have allowed the request (`https://api.example.com`);
    /// `None` when no rule can (a user name in the URL, an oversized response).
    pub grant: Option<NetRule>,
}

/// The denials of one call, shared with the response bodies the call is reading.
#[derive(Debug, Clone, Default)]
struct Denials(Arc<Mutex<Vec<NetDenial>>>);

impl Denials {
    fn push(&self, denial: NetDenial) {
        tracing::info!(url = denial.url, "network request denied: {}", denial.reason);
        let mut denials = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if denials.len() < MAX_DENIALS && !denials.contains(&denial) {
            denials.push(denial);
        }
    }

    fn snapshot(&self) -> Vec<NetDenial> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}

/// The `wasi:http` hooks of one call: its network rules, deadline and response cap.
#[derive(Debug)]
pub struct HttpGate {
    rules: Vec<NetRule>,
    deadline: Instant,
    response_cap: usize,
    denials: Denials,
    /// Counts every request the guest sends, allowed or not (the call's cost).
    meter: std::sync::Arc<super::UsageMeter>,
}

impl HttpGate {
    pub fn new(
        rules: Vec<NetRule>,
        deadline: Instant,
        response_cap: usize,
        meter: std::sync::Arc<super::UsageMeter>,
    ) -> Self {
        Self { rules, deadline, response_cap, denials: Denials::default(), meter }
    }

    /// Starts over for another phase of the call (an instance resumed for its execution):
    /// the new deadline, and no refusals yet — those reported are the execution's.
    pub fn renew(&mut self, deadline: Instant) {
        self.deadline = deadline;
        self.denials = Denials::default();
    }

    /// Every request refused so far, oldest first.
    pub fn denials(&self) -> Vec<NetDenial> {
        self.denials.snapshot()
    }

    /// Allows the request or says why not; the request's exact rule and the rules that allow
    /// it.
    fn check(&self, uri: &http::Uri) -> Result<(NetRule, Vec<NetRule>), NetDenial> {
        let url = display_url(uri);
        let deny = |reason, grant| Err(NetDenial { url: url.clone(), reason, grant });
        let (Some(scheme), Some(authority)) = (uri.scheme_str(), uri.authority()) else {
            return deny(DenialReason::Unsupported("the URL has no scheme or host"), None);
        };
        // One parse of the authority, the string the connector connects to; never
        // `Uri::port_u16`, which reads a port it cannot parse (`:83618`, `:`) as no port,
        // that is, as the scheme's default.
        let request = match NetRule::for_authority(scheme, authority.as_str()) {
            Ok(request) => request,
            Err(reason) => return deny(DenialReason::Unsupported(reason), None),
        };
        let allowing: Vec<NetRule> = self.rules.iter().filter(|rule| rule.covers(&request)).cloned().collect();
        if allowing.is_empty() { deny(DenialReason::NotGranted, Some(request)) } else { Ok((request, allowing)) }
    }

    /// The guest's timeouts, none longer than what is left of the call.
    fn bounded(&self, options: Option<RequestOptions>, left: Duration) -> RequestOptions {
        let options = options.unwrap_or_default();
        let bound = |asked: Option<Duration>| Some(asked.map_or(left, |asked| asked.min(left)));
        RequestOptions {
            connect_timeout: bound(options.connect_timeout),
            first_byte_timeout: bound(options.first_byte_timeout),
            between_bytes_timeout: bound(options.between_bytes_timeout),
        }
    }
}

type IoFuture = Box<dyn Future<Output = Result<(), HttpError>> + Send>;
type SendFuture = Box<dyn Future<Output = Result<(http::Response<WasiBody>, IoFuture), HttpError>> + Send>;

impl WasiHttpHooks for HttpGate {
    fn send_request(
        &mut self,
        request: http::Request<WasiBody>,
        options: Option<RequestOptions>,
        _request_outcome: IoFuture,
    ) -> SendFuture {
        self.meter.request();
        let (destination, allowing) = match self.check(request.uri()) {
            Ok(allowed) => allowed,
            Err(denial) => {
                self.denials.push(denial);
                return Box::new(async { Err(HttpError::HttpRequestDenied) });
            }
        };
        let left = self.deadline.saturating_duration_since(Instant::now());
        let options = self.bounded(options, left);
        let url = display_url(request.uri());
        let guard = BodyGuard {
            cap: self.response_cap,
            deadline: tokio::time::Instant::from_std(self.deadline),
            denials: self.denials.clone(),
            url: url.clone(),
        };
        let denials = self.denials.clone();
        Box::new(async move {
            let host = destination.host().unwrap_or_default().to_string();
            let port = destination.port();
            let use_tls = destination.scheme() == Scheme::Https;
            let work = async {
                let resolved = super::connect::resolve(&host, port, left).await?;
                let (addrs, refused): (Vec<_>, Vec<_>) = resolved.into_iter().partition(|addr| {
                    is_public(addr.ip()) || allowing.iter().any(|rule| rule.names_address(addr.ip()))
                });
                if addrs.is_empty() {
                    let address = refused.first().map(|a| a.ip().to_string()).unwrap_or_default();
                    // A grant of the destination itself reaches it when it names the address
                    // (an IP literal, localhost); a grant never lets another name reach it.
                    // Never for a link-local address (the cloud metadata service lives there).
                    let grant = refused
                        .first()
                        .filter(|a| destination.names_address(a.ip()) && !is_link_local(a.ip()))
                        .map(|_| destination.clone());
                    denials.push(NetDenial {
                        url,
                        reason: DenialReason::PrivateAddress { host: host.clone(), address },
                        grant,
                    });
                    return Err(HttpError::DestinationIpProhibited);
                }
                super::connect::send(request, addrs, &host, use_tls, options).await
            };
            // TLS handshakes have no timeout of their own.
            let (response, io) = tokio::time::timeout(left, work).await.map_err(|_| HttpError::ConnectionTimeout)??;
            let response = response.map(|body| guard.wrap(body.boxed_unsync()));
            Ok((response, Box::new(io) as IoFuture))
        })
    }
}

/// What a response body is held to.
struct BodyGuard {
    cap: usize,
    deadline: tokio::time::Instant,
    denials: Denials,
    url: String,
}

impl BodyGuard {
    fn wrap(self, inner: WasiBody) -> WasiBody {
        let sleep = Box::pin(tokio::time::sleep_until(self.deadline));
        GuardedBody { inner, guard: self, read: 0, sleep, failed: None, done: false }.boxed_unsync()
    }
}

/// A response body that ends in an error past the byte cap or the call's deadline.
struct GuardedBody {
    inner: WasiBody,
    guard: BodyGuard,
    read: usize,
    sleep: Pin<Box<tokio::time::Sleep>>,
    /// An error to return on the next poll, after the bytes up to the cap were handed out.
    failed: Option<HttpError>,
    done: bool,
}

impl GuardedBody {
    fn over_cap(&mut self) -> HttpError {
        self.guard.denials.push(NetDenial {
            url: self.guard.url.clone(),
            reason: DenialReason::ResponseTooLarge { cap: self.guard.cap },
            grant: None,
        });
        HttpError::HttpResponseBodySize(Some(self.guard.cap as u64))
    }
}

impl Body for GuardedBody {
    type Data = Bytes;
    type Error = HttpError;

    fn poll_frame(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, HttpError>>> {
        let this = self.get_mut();
        if let Some(error) = this.failed.take() {
            this.done = true;
            return Poll::Ready(Some(Err(error)));
        }
        if this.done {
            return Poll::Ready(None);
        }
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                let Some(data) = frame.data_ref() else {
                    return Poll::Ready(Some(Ok(frame)));
                };
                let room = this.guard.cap.saturating_sub(this.read);
                if data.len() <= room {
                    this.read += data.len();
                    return Poll::Ready(Some(Ok(frame)));
                }
                let error = this.over_cap();
                if room == 0 {
                    this.done = true;
                    return Poll::Ready(Some(Err(error)));
                }
                let allowed = data.slice(..room);
                this.read = this.guard.cap;
                this.failed = Some(error);
                Poll::Ready(Some(Ok(Frame::data(allowed))))
            }
            Poll::Ready(Some(Err(error))) => {
                this.done = true;
                Poll::Ready(Some(Err(error)))
            }
            Poll::Ready(None) => {
                this.done = true;
                Poll::Ready(None)
            }
            Poll::Pending => {
                if this.sleep.as_mut().poll(cx).is_ready() {
                    this.done = true;
                    return Poll::Ready(Some(Err(HttpError::ConnectionReadTimeout)));
                }
                Poll::Pending
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.failed.is_none() && (self.done || self.inner.is_end_stream())
    }

    fn size_hint(&self) -> SizeHint {
        if self.failed.is_some() || self.done {
            return SizeHint::default();
        }
        self.inner.size_hint()
    }
}

/// `scheme://authority/path` of a request, without the query, shortened for a message.
fn display_url(uri: &http::Uri) -> String {
    let scheme = uri.scheme_str().unwrap_or("?");
    let authority = uri.authority().map_or("", |a| a.as_str());
    let url = format!("{scheme}://{authority}{}", uri.path());
    url[..url.floor_char_boundary(MAX_URL)].to_string()
}

#[cfg(test)]
#[path = "http_tests.rs"]
mod tests;
