//! Sending a guest's `wasi:http` request to an address the host checked.
//!
//! wasmtime's `default_send_request` connects to the request's authority by name, resolving
//! it again inside `TcpStream::connect`: what was checked and what is reached could differ
//! (DNS rebinding). Here the name is resolved once ([`resolve`]), each address is judged
//! ([`crate::capability::net::is_public`], or named by the rule that allowed the request),
//! and the connection goes to the first allowed address itself; TLS still verifies the
//! certificate against the name the guest asked for.
//!
//! The rest follows `default_send_request` of wasmtime-wasi-http 48 (HTTP/1.1 over hyper,
//! rustls with the webpki roots, the guest's connect, first-byte and between-bytes
//! timeouts), so a guest sees the same behaviour and error codes.

use std::future::poll_fn;
use std::net::{IpAddr, SocketAddr};
use std::pin::{Pin, pin};
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use bytes::Bytes;
use http::{Request, Response};
use http_body::Body;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use wasmtime_wasi_http::io::TokioIo;
use wasmtime_wasi_http::{Error, RequestOptions};

/// How long a name may take to resolve when the guest's options leave more.
const MAX_RESOLVE: Duration = Duration::from_secs(10);

/// The addresses `host` (a name, or an IP address without brackets) stands for, resolved by
/// the host's resolver; an IP literal is itself.
pub(super) async fn resolve(host: &str, port: u16, within: Duration) -> Result<Vec<SocketAddr>, Error> {
    if let Ok(ip) = host.parse::<IpAddr>() {
        return Ok(vec![SocketAddr::new(ip, port)]);
    }
    let lookup = tokio::net::lookup_host((host, port));
    match tokio::time::timeout(within.min(MAX_RESOLVE), lookup).await {
        Err(_) => Err(Error::DnsTimeout),
        Ok(Err(error)) => Err(Error::DnsError { rcode: Some(error.to_string()), info_code: None }),
        Ok(Ok(addrs)) => {
            let addrs: Vec<SocketAddr> = addrs.collect();
            if addrs.is_empty() { Err(Error::DestinationNotFound) } else { Ok(addrs) }
        }
    }
}

trait Stream: AsyncRead + AsyncWrite + Send + Sync + Unpin + 'static {}
impl<T> Stream for T where T: AsyncRead + AsyncWrite + Send + Sync + Unpin + 'static {}

/// The TLS client configuration: the webpki roots, ring, built once.
fn tls() -> Arc<rustls::ClientConfig> {
    static CONFIG: OnceLock<Arc<rustls::ClientConfig>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let roots = rustls::RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.into() };
            let provider = Arc::new(rustls::crypto::ring::default_provider());
            let config = rustls::ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .map(|builder| builder.with_root_certificates(roots).with_no_client_auth());
            Arc::new(config.unwrap_or_else(|_| unreachable!("ring supports the default protocol versions")))
        })
        .clone()
}

/// Connects to the first of `addrs` that answers, within `timeout`: each address gets an
/// equal share of what is left, so one that never answers does not use up the others' time.
async fn connect(addrs: &[SocketAddr], timeout: Duration) -> Result<TcpStream, Error> {
    let deadline = tokio::time::Instant::now() + timeout;
    let mut last = None;
    for (tried, addr) in addrs.iter().enumerate() {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let share = left / u32::try_from(addrs.len() - tried).unwrap_or(u32::MAX);
        match tokio::time::timeout(share, TcpStream::connect(addr)).await {
            Ok(Ok(stream)) => return Ok(stream),
            Ok(Err(error)) => last = Some(error),
            Err(_) => last = Some(std::io::Error::from(std::io::ErrorKind::TimedOut)),
        }
    }
    Err(match last {
        Some(error) if error.kind() == std::io::ErrorKind::ConnectionRefused => Error::ConnectionRefused,
        Some(error) if error.kind() == std::io::ErrorKind::TimedOut => Error::ConnectionTimeout,
        Some(error) => Error::Connect(error),
        None => Error::DestinationNotFound,
    })
}

type IoFuture = Pin<Box<dyn Future<Output = Result<(), Error>> + Send>>;

/// Sends `request` to one of `addrs` (already checked), speaking TLS with `server_name`
/// when `tls` is set. Returns the response and the future that drives the rest of the
/// connection, as `default_send_request` does.
pub(super) async fn send(
    mut request: Request<impl Body<Data = Bytes, Error = Error> + Send + 'static>,
    addrs: Vec<SocketAddr>,
    server_name: &str,
    use_tls: bool,
    options: RequestOptions,
) -> Result<(Response<Incoming>, IoFuture), Error> {
    let connect_timeout = options.connect_timeout.unwrap_or(Duration::from_secs(600));
    let first_byte_timeout = options.first_byte_timeout.unwrap_or(Duration::from_secs(600));
    let between_bytes_timeout = options.between_bytes_timeout.unwrap_or(Duration::from_secs(600));

    let tcp = connect(&addrs, connect_timeout).await?;
    let stream: Box<dyn Stream> = if use_tls {
        let name = match server_name.parse::<IpAddr>() {
            Ok(ip) => rustls::pki_types::ServerName::from(ip),
            Err(_) => rustls::pki_types::ServerName::try_from(server_name.to_string())?,
        };
        let connector = tokio_rustls::TlsConnector::from(tls());
        let handshake = connector.connect(name, tcp);
        let tls = tokio::time::timeout(connect_timeout, handshake).await.map_err(|_| Error::ConnectionTimeout)?;
        Box::new(tls.map_err(Error::Tls)?)
    } else {
        Box::new(tcp)
    };
    let handshake = hyper::client::conn::http1::Builder::new().handshake(TokioIo::new(stream));
    let (mut sender, conn) =
        tokio::time::timeout(connect_timeout, handshake).await.map_err(|_| Error::ConnectionTimeout)??;

    // The request line carries the path only (scheme and authority are for proxies); the
    // Host header the guest's request holds stays.
    let path = request.uri().path_and_query().map_or("/", |p| p.as_str()).to_string();
    *request.uri_mut() = http::Uri::builder().path_and_query(path).build().map_err(|_| Error::HttpRequestUriInvalid)?;

    let send = async move {
        let response = tokio::time::timeout(first_byte_timeout, sender.send_request(request))
            .await
            .map_err(|_| Error::ConnectionReadTimeout)??;
        // tokio panics on an interval of zero.
        let between = between_bytes_timeout.max(Duration::from_nanos(1));
        let mut timeout = tokio::time::interval(between);
        timeout.reset();
        Ok::<_, Error>(response.map(|incoming| Incoming { incoming, timeout }))
    };
    let mut send = pin!(send);
    let mut conn = Some(conn);
    // Wait for the response while driving the connection's I/O.
    let response = poll_fn(|cx| match send.as_mut().poll(cx) {
        Poll::Ready(result) => Poll::Ready(result),
        Poll::Pending => {
            let Some(driving) = conn.as_mut() else { return Poll::Pending };
            let done = ready!(Pin::new(driving).poll(cx));
            conn = None;
            match done {
                Ok(()) => send.as_mut().poll(cx),
                Err(error) => Poll::Ready(Err(Error::from(error))),
            }
        }
    })
    .await?;
    let rest: IoFuture = Box::pin(async move {
        let Some(conn) = conn else { return Ok(()) };
        conn.await.map_err(|error| if error.is_timeout() { Error::HttpResponseTimeout } else { error.into() })
    });
    Ok((response, rest))
}

/// A response body that fails when no byte came for the between-bytes timeout.
pub(super) struct Incoming {
    incoming: hyper::body::Incoming,
    timeout: tokio::time::Interval,
}

impl Body for Incoming {
    type Data = Bytes;
    type Error = Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, Error>>> {
        match Pin::new(&mut self.incoming).poll_frame(cx) {
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Ready(Some(Err(error))) => {
                let error = if error.is_timeout() { Error::HttpResponseTimeout } else { Error::from(error) };
                Poll::Ready(Some(Err(error)))
            }
            Poll::Ready(Some(Ok(frame))) => {
                self.timeout.reset();
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Pending => {
                ready!(self.timeout.poll_tick(cx));
                Poll::Ready(Some(Err(Error::ConnectionReadTimeout)))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.incoming.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.incoming.size_hint()
    }
}
