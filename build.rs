// The name that programs linked with the shared library record, with the
// ABI's version (the package's major version): Linux's soname
// libnx_dtype.so.1; macOS's install name @rpath/libnx_dtype.1.dylib, which
// the loader finds through the program's rpath (or DYLD_LIBRARY_PATH) as
// Linux's finds the soname. Elsewhere the linker's default.
fn main() {
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let major = env!("CARGO_PKG_VERSION_MAJOR");
    match target_os.as_str() {
        "linux" => println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libnx_dtype.so.{major}"),
        "macos" => println!(
            "cargo:rustc-cdylib-link-arg=-Wl,-install_name,@rpath/libnx_dtype.{major}.dylib"
        ),
        _ => {}
    }
    println!("cargo:rerun-if-changed=build.rs");
}
