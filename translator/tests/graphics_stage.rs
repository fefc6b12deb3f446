//! The translation entry's `stage` option: compute is translated as before; a graphics stage is refused by
//! name until its lowering exists (issue 21), on a real corpus cubin from the pinned nvcc.

use sassport_translator::cubin::Cubin;
use sassport_translator::error::TranslateError;
use sassport_translator::graphics::Stage;
use sassport_translator::translate::{translate_kernel, Options};

#[test]
fn graphics_stages_are_refused_by_name_and_compute_is_unchanged() {
    let dir = sassport_corpus::root().join("sm86");
    let mut cubins: Vec<_> = std::fs::read_dir(&dir)
        .expect("corpus/sm86")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "cubin"))
        .collect();
    cubins.sort();
    let path = cubins.first().expect("a corpus cubin");
    let bytes = std::fs::read(path).expect("readable");
    let cubin = Cubin::parse(&bytes).expect("parses");
    let kernel = cubin.kernels.first().expect("a kernel").name().to_string();
    let compute = translate_kernel(&cubin, &kernel, &Options::default());
    let explicit =
        translate_kernel(&cubin, &kernel, &Options { stage: Stage::Compute, ..Options::default() });
    assert_eq!(compute.map(|t| t.words), explicit.map(|t| t.words));
    for stage in [Stage::Vertex, Stage::TessControl, Stage::TessEval, Stage::Geometry, Stage::Fragment] {
        let err = translate_kernel(&cubin, &kernel, &Options { stage, ..Options::default() }).unwrap_err();
        assert_eq!(err, TranslateError::StageNotTranslated { kernel: kernel.clone(), stage });
        assert!(err.to_string().contains(&format!("{stage:?}")), "{err}");
    }
}
