(* A user's program, built against an installed nx_array as dune builds it
   ((libraries nx_array), OCAMLPATH=P/lib/ocaml) and with nothing on the
   command line but -I P/lib/ocaml/nx_array nx_array.cmxa (mk/ocaml.mk,
   test-ocaml-install). *)
open Nx_array

let () =
  let x = Dtype.of_float Dtype.Float16 0.1 in
  let s = Format.asprintf "%a" (Dtype.pp_value Dtype.Float16) x in
  let src = Bigarray.(Array1.of_array float32 c_layout [| 0.1; 65520.; -2.5 |]) in
  let dst = Bigarray.(Array1.create float16 c_layout 3) in
  Convert.blit (Bigarray.genarray_of_array1 src) (Bigarray.genarray_of_array1 dst);
  let ok =
    x = 0x1.998p-4 && s = "0.1" && Dtype.name Dtype.Float16 = "float16"
    && dst.{0} = Dtype.of_float Dtype.Float16 src.{0} && dst.{1} = infinity && dst.{2} = -2.5
  in
  Printf.printf "installed nx_array: of_float Float16 0.1 = %h, printed %s, blit %h %h %h (%s)\n" x s
    dst.{0} dst.{1} dst.{2}
    (if ok then "ok" else "WRONG");
  exit (if ok then 0 else 1)
