(* Built against an installed nx_array with nothing on the command line but
   -I P/lib/ocaml/nx_array nx_array.cmxa (mk/ocaml.mk, test-ocaml-install). *)
open Nx_array

let () =
  let x = Dtype.of_float Dtype.Float16 0.1 in
  let s = Format.asprintf "%a" (Dtype.pp_value Dtype.Float16) x in
  let ok = x = 0x1.998p-4 && s = "0.1" && Dtype.name Dtype.Float16 = "float16" in
  Printf.printf "installed nx_array: of_float Float16 0.1 = %h, printed %s (%s)\n" x s
    (if ok then "ok" else "WRONG");
  exit (if ok then 0 else 1)
