input()
print(input().split().count("0"))
