module example.invalid/pi-go-adapter

go 1.19
