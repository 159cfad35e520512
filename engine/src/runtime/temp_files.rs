//! Temporary files a guest creates under airlock's own naming (`.NAME.airlock-HEX.tmp`, what
//! the plugin SDK's atomic write stages a file in). The linker's `descriptor.open-at` is
//! shadowed by one that calls wasmtime-wasi's own and, when it created a file of that
//! naming, notes the file (its path, device and inode) in the call's
//! [`CallTemps`](airlock_files::leftovers::CallTemps): what is still there when the call's
//! instance goes is removed then, and a kill before that is cleaned up at the next start
//! ([`airlock_files::leftovers`]).

use wasmtime::StoreContextMut;
use wasmtime::component::{Linker, Resource};
use wasmtime_wasi::filesystem::WasiFilesystemView;
use wasmtime_wasi::p2::bindings::filesystem::types::{
    Descriptor, DescriptorFlags, Host, HostDescriptor, OpenFlags, PathFlags,
};

use super::state::CallState;
use airlock_files::leftovers::{TempFile, is_temp_name};

/// The interface whose `open-at` is shadowed (as in [`super::metered`]).
const TYPES: &str = "wasi:filesystem/types@0.2.12";

/// Replaces `descriptor.open-at` of `linker` with one that notes airlock's temporary files.
pub fn add_to_linker(linker: &mut Linker<CallState>) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    let mut types = linker.instance(TYPES)?;
    types.func_wrap_async(
        "[method]descriptor.open-at",
        |mut store: StoreContextMut<'_, CallState>,
         (fd, path_flags, path, open_flags, flags): (
            Resource<Descriptor>,
            PathFlags,
            String,
            OpenFlags,
            DescriptorFlags,
        )| {
            Box::new(async move {
                let creates = open_flags.contains(OpenFlags::CREATE)
                    && path.rsplit('/').next().is_some_and(|name| is_temp_name(name.as_bytes()));
                if creates {
                    airlock_files::leftovers::prepare();
                }
                let mut view = store.data_mut().filesystem();
                let result = match HostDescriptor::open_at(&mut view, fd, path_flags, path, open_flags, flags).await {
                    Ok(opened) => Ok(opened),
                    Err(error) => Err(view.convert_error_code(error)?),
                };
                if creates && let Ok(opened) = &result {
                    let noted = match view.table.get(opened)? {
                        Descriptor::File(file) => TempFile::of(&file.file),
                        Descriptor::Dir(_) => None,
                    };
                    if let Some(temp) = noted {
                        store.data_mut().temp_files.add(temp);
                    }
                }
                Ok((result,))
            })
        },
    )?;
    Ok(())
}
