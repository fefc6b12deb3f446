//! Entry-point resolution by name and version, and the fixed answers of the integrity check.

use cuda::proc::resolve;

#[test]
fn versions_select_the_matching_signature() {
    let v1 = resolve("cuCtxSynchronize", 2000).unwrap();
    let v2 = resolve("cuCtxSynchronize", 13000).unwrap();
    assert_ne!(
        v1, v2,
        "cuCtxSynchronize_v2 takes a context: a different entry point"
    );
    assert_eq!(resolve("cuCtxSynchronize", 12090).unwrap(), v1);
    assert_eq!(
        resolve("cuMemAlloc", 3020).unwrap(),
        cuda::memory::cuMemAlloc_v2 as *const std::ffi::c_void
    );
    // cuMemAlloc before 3.2 took 32-bit sizes: not implemented, so not handed out.
    assert_eq!(resolve("cuMemAlloc", 2000), Err(2));
    assert_eq!(resolve("cuNoSuchCall", 13000), Err(1));
}

#[test]
fn integrity_versions_ending_in_0_and_1_have_fixed_answers() {
    assert_eq!(
        cuda::integrity::answer(13050, b""),
        [0x3341181C03CB675C, 0x8ED383AA1F4CD1E8]
    );
    assert_eq!(
        cuda::integrity::answer(13051, b"anything"),
        [0x1841181C03CB675C, 0x8ED383AA1F4CD1E8]
    );
    // Others depend on the message.
    assert_ne!(
        cuda::integrity::answer(13052, b"a"),
        cuda::integrity::answer(13052, b"b")
    );
}

#[test]
fn every_result_code_has_a_name_and_a_description() {
    for &(code, name) in cuda::result::RESULT_NAMES {
        assert_eq!(cuda::result::result_name(code), Some(name));
        assert!(
            !cuda::result::result_description(code)
                .unwrap_or("")
                .is_empty(),
            "{name}"
        );
    }
}
