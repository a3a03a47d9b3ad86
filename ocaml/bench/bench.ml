(* Nanoseconds per call of of_float and pp_value from OCaml; bench_c.c times
   the same library calls from C. Inputs cycle through 1024 doubles so that
   no call is hoisted out of the loop. *)

module D = Nx_array.Dtype

let inputs = Array.init 1024 (fun i -> ldexp (float_of_int (i * 7919 mod 1024) -. 512.) (i mod 40 - 20) +. 0.1)

let time name ~n f =
  f 0 |> ignore;
  let t0 = Sys.time () in
  for i = 0 to n - 1 do
    ignore (Sys.opaque_identity (f (i land 1023)))
  done;
  let dt = Sys.time () -. t0 in
  Printf.printf "ocaml %-34s %7.1f ns/call\n%!" name (dt *. 1e9 /. float_of_int n)

let of_float name dt =
  time ("of_float " ^ name) ~n:20_000_000 (fun i ->
      D.of_float dt (Array.unsafe_get inputs i))

let () =
  (* The loop alone: a closure call and a boxed float result. *)
  time "(empty loop: closure, boxed float)" ~n:20_000_000 (fun i -> Array.unsafe_get inputs i +. 1.);
  of_float "Float16" D.Float16;
  of_float "Bfloat16" D.Bfloat16;
  of_float "Float8_e4m3fn" D.Float8_e4m3fn;
  of_float "Float32" D.Float32;
  of_float "Float64" D.Float64;
  time "of_float Int8" ~n:20_000_000 (fun i -> D.of_float D.Int8 (Array.unsafe_get inputs i));
  time "of_float Uint32" ~n:20_000_000 (fun i -> D.of_float D.Uint32 (Array.unsafe_get inputs i));
  time "of_float Bool" ~n:20_000_000 (fun i -> D.of_float D.Bool (Array.unsafe_get inputs i));
  let values = Array.map (D.of_float D.Float16) inputs in
  let null = Format.make_formatter (fun _ _ _ -> ()) ignore in
  (
      time "pp_value Float16 (null formatter)" ~n:2_000_000 (fun i ->
          D.pp_value D.Float16 null (Array.unsafe_get values i));
      let b = Buffer.create 64 in
      let ppf = Format.formatter_of_buffer b in
      time "pp_value Float16 (to a Buffer)" ~n:2_000_000 (fun i ->
          Buffer.clear b;
          D.pp_value D.Float16 ppf (Array.unsafe_get values i);
          Format.pp_print_flush ppf ());
      time "Format.asprintf \"%a\" pp_value Float16" ~n:1_000_000 (fun i ->
          Format.asprintf "%a" (D.pp_value D.Float16) (Array.unsafe_get values i));
      let f32 = Array.map (D.of_float D.Float32) inputs in
      time "pp_value Float32 (null formatter)" ~n:2_000_000 (fun i ->
          D.pp_value D.Float32 null (Array.unsafe_get f32 i));
      time "pp_value Int16 (null formatter)" ~n:2_000_000 (fun i ->
          D.pp_value D.Int16 null (i - 512)))
