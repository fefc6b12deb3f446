//! Gives the library the soname the CUDA runtime `dlopen`s (`libcuda.so.1`) and leaves
//! `<target>/<profile>/cuda/libcuda.so.1` pointing at the built `libcuda.so`, the directory `sassport exec` puts
//! on `LD_LIBRARY_PATH`.

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("linux") {
        return;
    }
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcuda.so.1");
    // OUT_DIR is <target>/<profile>/build/<pkg>-<hash>/out: the profile directory is three levels up.
    let Some(out) = std::env::var_os("OUT_DIR").map(PathBuf::from) else {
        return;
    };
    let Some(profile_dir) = out.ancestors().nth(3) else {
        return;
    };
    let dir = profile_dir.join("cuda");
    let link = dir.join("libcuda.so.1");
    if std::fs::create_dir_all(&dir).is_ok() && std::fs::symlink_metadata(&link).is_err() {
        // Dangling until the library is linked; a failure only means `sassport exec` makes the link itself.
        let _ = std::os::unix::fs::symlink("../libcuda.so", &link);
    }
}
