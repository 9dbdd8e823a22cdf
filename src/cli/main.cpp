// STUB
int main() { return 3; }
