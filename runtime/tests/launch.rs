mod support;
#[test]
fn kernel_validates() {
    support::spirv_val(&support::store_gid_kernel());
}
