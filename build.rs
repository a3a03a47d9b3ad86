// The shared object's soname carries the ABI version (ABI.md: libnx_dtype.so.1).
fn main() {
    let target_os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if target_os == "linux" {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libnx_dtype.so.1");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
