(* The tests' counting checks: each prints "FAIL: ..." when it fails, and
   [finish] prints "N passed, N failed" and exits 1 on any failure. *)

let passed = ref 0
let failed = ref 0

let check name ok =
  if ok then incr passed
  else begin
    incr failed;
    Printf.printf "FAIL: %s\n%!" name
  end

(* A check over many cases: one result, the first few mismatches shown. *)
let check_all name f cases =
  let bad = ref 0 in
  List.iter
    (fun c ->
      match f c with
      | None -> ()
      | Some msg ->
          incr bad;
          if !bad <= 3 then Printf.printf "  %s: %s\n%!" name msg)
    cases;
  check (Printf.sprintf "%s (%d mismatches)" name !bad) (!bad = 0)

let raises_invalid f =
  match f () with _ -> false | exception Invalid_argument _ -> true

let show_float x = Printf.sprintf "%h" x
let same_float a b = Int64.equal (Int64.bits_of_float a) (Int64.bits_of_float b)

let finish () =
  Printf.printf "%d passed, %d failed\n" !passed !failed;
  exit (if !failed = 0 then 0 else 1)
