//! Bytes a guest reads from and writes to files, for a call's cost. The linker's
//! `wasi:filesystem/types` functions that move file bytes are shadowed by ones that call
//! wasmtime-wasi's own implementation and count: `descriptor.read` and `descriptor.write`
//! directly, and the streams `read-via-stream`, `write-via-stream` and `append-via-stream`
//! hand out are wrapped in counting streams. Only file bytes are counted: stdout, stderr, live
//! output, logs and HTTP bodies use other streams. What counts is what the host moved for the
//! guest (bytes read into the guest, bytes accepted for writing), not what the disk did.

use std::sync::Arc;

use bytes::Bytes;
use wasmtime::StoreContextMut;
use wasmtime::component::{Linker, Resource};
use wasmtime_wasi::filesystem::WasiFilesystemView;
use wasmtime_wasi::p2::bindings::filesystem::types::{Descriptor, ErrorCode, Filesize, Host, HostDescriptor};
use wasmtime_wasi::p2::{DynInputStream, DynOutputStream, InputStream, OutputStream, Pollable, StreamResult};

use super::UsageMeter;
use super::state::CallState;

/// The interface whose functions are shadowed (the version wasmtime-wasi 48 links; guests
/// importing an earlier 0.2 version are linked to it by semver).
const TYPES: &str = "wasi:filesystem/types@0.2.12";

/// Replaces the byte-moving file functions of `linker` with counting ones.
pub fn add_to_linker(linker: &mut Linker<CallState>) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    let mut types = linker.instance(TYPES)?;
    types.func_wrap_async(
        "[method]descriptor.read",
        |mut store: StoreContextMut<'_, CallState>, (fd, len, offset): (Resource<Descriptor>, Filesize, Filesize)| {
            Box::new(async move {
                let meter = store.data().meter.clone();
                let mut view = store.data_mut().filesystem();
                let result = match HostDescriptor::read(&mut view, fd, len, offset).await {
                    Ok((bytes, end)) => {
                        meter.read(bytes.len());
                        Ok((bytes, end))
                    }
                    Err(error) => Err(view.convert_error_code(error)?),
                };
                Ok((result,))
            })
        },
    )?;
    types.func_wrap_async(
        "[method]descriptor.write",
        |mut store: StoreContextMut<'_, CallState>, (fd, buf, offset): (Resource<Descriptor>, Vec<u8>, Filesize)| {
            Box::new(async move {
                let meter = store.data().meter.clone();
                let mut view = store.data_mut().filesystem();
                let result = match HostDescriptor::write(&mut view, fd, buf, offset).await {
                    Ok(written) => {
                        meter.written(usize::try_from(written).unwrap_or(usize::MAX));
                        Ok(written)
                    }
                    Err(error) => Err(view.convert_error_code(error)?),
                };
                Ok((result,))
            })
        },
    )?;
    types.func_wrap(
        "[method]descriptor.read-via-stream",
        |mut store: StoreContextMut<'_, CallState>, (fd, offset): (Resource<Descriptor>, Filesize)| {
            let meter = store.data().meter.clone();
            let mut view = store.data_mut().filesystem();
            let result = match HostDescriptor::read_via_stream(&mut view, fd, offset) {
                Ok(stream) => {
                    let inner: DynInputStream = view.table.delete(stream)?;
                    let counted: DynInputStream = Box::new(CountedInput { inner, meter });
                    Ok(view.table.push(counted)?)
                }
                Err(error) => Err(view.convert_error_code(error)?),
            };
            Ok((result,))
        },
    )?;
    for (name, append) in
        [("[method]descriptor.write-via-stream", false), ("[method]descriptor.append-via-stream", true)]
    {
        if append {
            types.func_wrap(name, |mut store: StoreContextMut<'_, CallState>, (fd,): (Resource<Descriptor>,)| {
                let meter = store.data().meter.clone();
                let mut view = store.data_mut().filesystem();
                let opened = HostDescriptor::append_via_stream(&mut view, fd);
                Ok((counted_output(&mut view, opened, meter)?,))
            })?;
        } else {
            types.func_wrap(
                name,
                |mut store: StoreContextMut<'_, CallState>, (fd, offset): (Resource<Descriptor>, Filesize)| {
                    let meter = store.data().meter.clone();
                    let mut view = store.data_mut().filesystem();
                    let opened = HostDescriptor::write_via_stream(&mut view, fd, offset);
                    Ok((counted_output(&mut view, opened, meter)?,))
                },
            )?;
        }
    }
    Ok(())
}

/// An output stream the host opened, wrapped so its bytes are counted.
fn counted_output(
    view: &mut wasmtime_wasi::filesystem::WasiFilesystemCtxView<'_>,
    opened: wasmtime_wasi::p2::FsResult<Resource<DynOutputStream>>,
    meter: Arc<UsageMeter>,
) -> wasmtime::Result<Result<Resource<DynOutputStream>, ErrorCode>> {
    Ok(match opened {
        Ok(stream) => {
            let inner: DynOutputStream = view.table.delete(stream)?;
            let counted: DynOutputStream = Box::new(CountedOutput { inner, meter });
            Ok(view.table.push(counted)?)
        }
        Err(error) => Err(view.convert_error_code(error)?),
    })
}

/// A file's input stream that counts what the guest reads.
struct CountedInput {
    inner: DynInputStream,
    meter: Arc<UsageMeter>,
}

#[wasmtime_wasi::async_trait]
impl Pollable for CountedInput {
    async fn ready(&mut self) {
        self.inner.ready().await;
    }
}

#[wasmtime_wasi::async_trait]
impl InputStream for CountedInput {
    fn read(&mut self, size: usize) -> StreamResult<Bytes> {
        let bytes = self.inner.read(size)?;
        self.meter.read(bytes.len());
        Ok(bytes)
    }

    async fn blocking_read(&mut self, size: usize) -> StreamResult<Bytes> {
        let bytes = self.inner.blocking_read(size).await?;
        self.meter.read(bytes.len());
        Ok(bytes)
    }

    fn skip(&mut self, nelem: usize) -> StreamResult<usize> {
        self.inner.skip(nelem)
    }

    async fn blocking_skip(&mut self, nelem: usize) -> StreamResult<usize> {
        self.inner.blocking_skip(nelem).await
    }

    async fn cancel(&mut self) {
        self.inner.cancel().await;
    }
}

/// A file's output stream that counts what the guest writes.
struct CountedOutput {
    inner: DynOutputStream,
    meter: Arc<UsageMeter>,
}

#[wasmtime_wasi::async_trait]
impl Pollable for CountedOutput {
    async fn ready(&mut self) {
        self.inner.ready().await;
    }
}

#[wasmtime_wasi::async_trait]
impl OutputStream for CountedOutput {
    fn write(&mut self, bytes: Bytes) -> StreamResult<()> {
        let len = bytes.len();
        self.inner.write(bytes)?;
        self.meter.written(len);
        Ok(())
    }

    fn flush(&mut self) -> StreamResult<()> {
        self.inner.flush()
    }

    fn check_write(&mut self) -> StreamResult<usize> {
        self.inner.check_write()
    }

    async fn blocking_write_and_flush(&mut self, bytes: Bytes) -> StreamResult<()> {
        let len = bytes.len();
        self.inner.blocking_write_and_flush(bytes).await?;
        self.meter.written(len);
        Ok(())
    }

    fn write_zeroes(&mut self, nelem: usize) -> StreamResult<()> {
        self.inner.write_zeroes(nelem)?;
        self.meter.written(nelem);
        Ok(())
    }

    async fn write_ready(&mut self) -> StreamResult<usize> {
        self.inner.write_ready().await
    }

    async fn cancel(&mut self) {
        self.inner.cancel().await;
    }
}
