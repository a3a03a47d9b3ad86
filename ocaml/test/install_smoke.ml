(* Built against an installed nx_array with nothing on the command line but
   -I P/lib/ocaml/nx_array nx_array.cmxa (mk/ocaml.mk, test-ocaml-install). *)
open Nx_array

let () =
  let x = Dtype.of_float Dtype.Float16 0.1 in
  let ok = x = 0x1.998p-4 && Dtype.name Dtype.Float16 = "float16" && Dtype.bits Dtype.Bit = 1 in
  Printf.printf "installed nx_array: of_float Float16 0.1 = %h (%s)\n" x
    (if ok then "ok" else "WRONG");
  exit (if ok then 0 else 1)
