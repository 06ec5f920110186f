print("reqbench")
