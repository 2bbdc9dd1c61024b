module nodelet/mockapi/helpers/go

go 1.19
