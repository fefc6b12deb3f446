#version 450
layout(location = 0) in vec4 a0;
layout(location = 1) in vec4 a1;
layout(location = 0) noperspective out vec4 v0;
void main() { gl_Position = a0; v0 = a1; }
