//! What nczview refuses: one line, exit 1, no file written, nothing replaced.

use super::field;
use crate::util::{run, s};

#[test]
fn variables_that_cannot_be_drawn() {
    let dir = tempfile::tempdir().unwrap();
    let nc = field(dir.path(), "nc4");
    let out = dir.path().join("x.png");
    let cases: &[(&[&str], &str)] = &[
        (
            &["-v", "line"],
            "variable 'line' has 1 dimension(s): a picture needs at least two",
        ),
        (&["-v", "time"], "variable 'time' has 1 dimension(s)"),
        (
            &["-v", "names"],
            "variable 'names' is of type char: only numbers can be drawn",
        ),
        (
            &["-v", "empty"],
            "variable 'empty': every value of the slice is missing",
        ),
        (
            &["-v", "sstt"],
            "no variable 'sstt' (those that can be drawn: sst, packed, anom, empty)",
        ),
        (
            &["-v", "sst", "--x", "depth"],
            "--x depth: variable 'sst' has no dimension 'depth' (it has time,lat,lon)",
        ),
        (
            &["-v", "sst", "--x", "lat", "--y", "lat"],
            "--x and --y both name dimension 'lat'",
        ),
        (
            &["-v", "sst", "--cmap", "virdis"],
            "--cmap virdis: no such colour map",
        ),
        (&["-v", "sst", "--range", "5,1"], "--range 5,1: not MIN,MAX"),
        (&["-v", "sst", "--range", "a,b"], "--range a,b: not MIN,MAX"),
        (
            &["-v", "anom", "--log", "--range", "0,1"],
            "a logarithmic scale needs positive values",
        ),
        (
            &["-v", "sst", "--dim", "time,5"],
            "--dim time,5: index 5 is outside",
        ),
        (
            &["-v", "sst", "--dim", "tim,0"],
            "--dim tim,0: no dimension 'tim'",
        ),
    ];
    for (args, said) in cases {
        let mut a = vec![s(&nc)];
        a.extend(args.iter().map(|x| x.to_string()));
        a.extend(["-o".to_string(), s(&out)]);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let err = run("nczview", &a).fails_with_one_line(1);
        assert!(err.contains(said), "{args:?}: {err}");
        assert!(!out.exists(), "{args:?}: a picture was written");
    }
    // A dataset with nothing drawable, and no -v.
    let cdl = dir.path().join("flat.cdl");
    std::fs::write(
        &cdl,
        "netcdf flat {\ndimensions:\n n = 2 ;\nvariables:\n int v(n) ;\n}\n",
    )
    .unwrap();
    let flat = dir.path().join("flat.nc");
    run("nczgen", &["-o", &s(&flat), &s(&cdl)]).success();
    let err = run("nczview", &[&s(&flat), "-o", &s(&out)]).fails_with_one_line(1);
    assert!(
        err.contains("no variable of two or more numeric dimensions to draw"),
        "{err}"
    );
    // A record dimension with no records yet.
    let cdl = dir.path().join("norec.cdl");
    std::fs::write(
        &cdl,
        "netcdf norec {\ndimensions:\n t = UNLIMITED ;\n y = 2 ;\n x = 2 ;\nvariables:\n float v(t, y, x) ;\n}\n",
    )
    .unwrap();
    let norec = dir.path().join("norec.nc");
    run("nczgen", &["-o", &s(&norec), &s(&cdl)]).success();
    let err = run("nczview", &[&s(&norec), "-o", &s(&out)]).fails_with_one_line(1);
    assert!(
        err.contains("variable 'v': dimension 't' has length 0, nothing to draw"),
        "{err}"
    );
    assert!(!out.exists());
}

#[test]
fn outputs_never_replaced_unasked() {
    let dir = tempfile::tempdir().unwrap();
    let nc = field(dir.path(), "nc4");
    let store = field(dir.path(), "nczarr");
    let png = dir.path().join("a.png");
    run("nczview", &[&s(&nc), "-v", "sst", "-o", &s(&png)]).success();
    let before = std::fs::read(&png).unwrap();
    // An existing picture: -O replaces it.
    let err = run("nczview", &[&s(&nc), "-v", "anom", "-o", &s(&png)]).fails_with_one_line(1);
    assert!(err.contains("exists; give -O to replace it"), "{err}");
    assert_eq!(std::fs::read(&png).unwrap(), before);
    run("nczview", &[&s(&nc), "-v", "anom", "-o", &s(&png), "-O"]).success();
    assert_ne!(std::fs::read(&png).unwrap(), before);
    // A file that is not a PNG is never replaced, nor a directory, nor a dataset's key.
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "mine").unwrap();
    let err = run("nczview", &[&s(&nc), "-v", "sst", "-O", "-o", &s(&text)]).fails_with_one_line(1);
    assert!(err.contains("exists and is not a PNG file"), "{err}");
    assert_eq!(std::fs::read_to_string(&text).unwrap(), "mine");
    let err =
        run("nczview", &[&s(&nc), "-v", "sst", "-O", "-o", &s(&store)]).fails_with_one_line(1);
    assert!(err.contains("a directory, not a PNG file"), "{err}");
    let inside = store.join("sst").join("x.png");
    let err = run("nczview", &[&s(&nc), "-v", "sst", "-o", &s(&inside)]).fails_with_one_line(1);
    assert!(err.contains(&s(&store)), "{err}");
    assert!(!inside.exists());
    // No staged file left behind.
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains("nczview"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
